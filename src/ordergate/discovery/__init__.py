"""Tool discovery: what the venue offers, what changed since the last look, and whether the
change is dangerous.

Snapshots (``Snapshot``, ``load_surface``), classified drift (``diff``), classification of a
tool by the words of its name (``classify``), capabilities resolved by predicate
(``resolve``), canonical order fields mapped onto a schema (``map_order``), local argument
validation (``check_arguments``) and crypto readiness (``check``).

Errors::

    OrdergateError
    ├── SnapshotError ── SourceError      a listing or file fails a sanity check / cannot load
    └── ToolError
        ├── ToolUnavailable ── AmbiguousCapability
        ├── UnsupportedField, UnmappedField      an order field with nowhere to go
        └── InvalidArguments, InvalidSchema      arguments the advertised schema refuses
"""

from ordergate.discovery._capabilities import (
    CAPABILITIES,
    CRYPTO_CAPABILITIES,
    AmbiguousCapability,
    Capability,
    ToolUnavailable,
    accepts_crypto_pair,
    candidates,
    resolve,
    resolve_all,
)
from ordergate.discovery._classify import Classifier, classify, load_overrides, name_words
from ordergate.discovery._drift import Change, ChangeKind, Compat, diff
from ordergate.discovery._mapping import (
    CANONICAL_FIELDS,
    SYNONYMS,
    UnmappedField,
    UnsupportedField,
    canonical_of,
    map_order,
    property_for,
)
from ordergate.discovery._readiness import (
    EXIT_APPEARED,
    EXIT_DISAPPEARED,
    EXIT_UNCHANGED,
    Readiness,
    assess,
    check,
)
from ordergate.discovery._snapshot import Snapshot, SnapshotError, ToolEntry
from ordergate.discovery._sources import (
    SourceError,
    SourceKind,
    is_url,
    load_file,
    load_live,
    load_surface,
)
from ordergate.discovery._validate import (
    ArgumentProblem,
    InvalidArguments,
    InvalidSchema,
    check_arguments,
    prepare_arguments,
    strip_local,
)

__all__ = [
    "CANONICAL_FIELDS",
    "CAPABILITIES",
    "CRYPTO_CAPABILITIES",
    "EXIT_APPEARED",
    "EXIT_DISAPPEARED",
    "EXIT_UNCHANGED",
    "SYNONYMS",
    "AmbiguousCapability",
    "ArgumentProblem",
    "Capability",
    "Change",
    "ChangeKind",
    "Classifier",
    "Compat",
    "InvalidArguments",
    "InvalidSchema",
    "Readiness",
    "Snapshot",
    "SnapshotError",
    "SourceError",
    "SourceKind",
    "ToolEntry",
    "ToolUnavailable",
    "UnmappedField",
    "UnsupportedField",
    "accepts_crypto_pair",
    "assess",
    "candidates",
    "canonical_of",
    "check",
    "check_arguments",
    "classify",
    "diff",
    "is_url",
    "load_file",
    "load_live",
    "load_overrides",
    "load_surface",
    "map_order",
    "name_words",
    "prepare_arguments",
    "property_for",
    "resolve",
    "resolve_all",
    "strip_local",
]
