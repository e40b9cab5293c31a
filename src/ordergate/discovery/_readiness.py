"""Crypto readiness: which crypto capabilities the upstream offers now, and whether that changed
since the last look.

Agentic crypto runs through the same endpoint as everything else; only the tool names and
schemas are unknown until they show up in ``tools/list``. So readiness is detected by
capability (``crypto_preview``, ``crypto_place``, ``crypto_cancel``, ``crypto_quotes``),
never by a guessed name, and the last assessment is kept in a JSON state file (written
atomically) for a scheduled poller to compare against.

``check`` returns an exit code a scheduler can alert on:

- ``10`` (``EXIT_APPEARED``): a crypto capability resolves that did not at the last run;
- ``11`` (``EXIT_DISAPPEARED``): one that resolved at the last run no longer does
  (wins over 10 when both happen);
- ``0`` otherwise — including a capability that moved to another tool name, which the
  assessment shows but which is drift's business, not readiness's.

The first run (no state file) compares against an empty record: capabilities present on
the first look count as appeared (10), because nobody has been told about them yet; a
surface without crypto answers 0. A state file that cannot be read is refused
(``ConfigError``) and left untouched rather than silently taken as empty, which would
announce everything as new.

A capability appearing is not permission to trade: on 10, read the new schemas and extend
the policy before the first order.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ordergate.core import Clock, ConfigError, RealtimeClock, write_private
from ordergate.discovery._capabilities import CRYPTO_CAPABILITIES, Descriptor, resolve_all
from ordergate.discovery._classify import classify
from ordergate.inventory import ToolClass

__all__ = [
    "EXIT_APPEARED",
    "EXIT_DISAPPEARED",
    "EXIT_UNCHANGED",
    "STATE_VERSION",
    "Readiness",
    "assess",
    "check",
    "read_state",
    "write_state",
]

EXIT_UNCHANGED = 0
EXIT_APPEARED = 10
EXIT_DISAPPEARED = 11
STATE_VERSION = 1


@dataclass(frozen=True, slots=True)
class Readiness:
    """One assessment: each crypto capability with the tool providing it (or ``None``).

    ``appeared``/``disappeared``/``first_run`` compare it with the previous record; they are
    empty (and ``False``) for a bare ``assess``.
    """

    tools: Mapping[str, str | None]
    assessed_at: datetime | None = None
    appeared: tuple[str, ...] = ()
    disappeared: tuple[str, ...] = ()
    first_run: bool = False
    previous: Mapping[str, str | None] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def available(self) -> tuple[str, ...]:
        """The crypto capabilities that resolve, in declaration order."""
        return tuple(name for name, tool in self.tools.items() if tool is not None)

    @property
    def ready(self) -> bool:
        """Whether crypto orders can be placed through the MCP (``crypto_place`` resolves)."""
        return self.tools.get("crypto_place") is not None

    @property
    def exit_code(self) -> int:
        if self.disappeared:
            return EXIT_DISAPPEARED
        if self.appeared:
            return EXIT_APPEARED
        return EXIT_UNCHANGED

    def to_json(self) -> dict[str, Any]:
        return {
            "version": STATE_VERSION,
            "assessed_at": self.assessed_at.isoformat() if self.assessed_at else None,
            "ready": self.ready,
            "capabilities": dict(self.tools),
        }


def assess(
    tools: Sequence[Descriptor],
    *,
    classifier: Callable[[str], ToolClass] = classify,
    clock: Clock | None = None,
) -> Readiness:
    """Which crypto capabilities ``tools`` provide, and by which tool."""
    resolved = resolve_all(tools, classifier=classifier)
    crypto = {name: resolved[name] for name in CRYPTO_CAPABILITIES}
    return Readiness(tools=MappingProxyType(crypto), assessed_at=(clock or RealtimeClock()).now())


def read_state(path: Path) -> Mapping[str, str | None] | None:
    """The capabilities recorded in ``path``; ``None`` when there is no file yet.

    Raises ``ConfigError`` naming the file for one that cannot be read or is not a state
    file of this version.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as error:
        raise ConfigError(str(path), f"cannot read the state file ({error.strerror})") from None
    try:
        document = json.loads(text)
    except ValueError:
        raise ConfigError(str(path), "the state file is not JSON") from None
    if not isinstance(document, dict) or document.get("version") != STATE_VERSION:
        raise ConfigError(str(path), f"not a readiness state file (version {STATE_VERSION})")
    recorded = document.get("capabilities")
    if not isinstance(recorded, dict) or not all(
        isinstance(name, str) and (tool is None or isinstance(tool, str))
        for name, tool in recorded.items()
    ):
        raise ConfigError(str(path), "capabilities must map names to a tool name or null")
    return MappingProxyType(dict(recorded))


def write_state(path: Path, readiness: Readiness) -> None:
    """Replace ``path`` with ``readiness`` atomically (a reader sees the old or the new file;
    ``ordergate.core.write_private``, so 0600 like every file ordergate writes)."""
    data = json.dumps(readiness.to_json(), indent=2, sort_keys=True) + "\n"
    write_private(path, data.encode())


def check(
    tools: Sequence[Descriptor],
    state_file: Path,
    *,
    classifier: Callable[[str], ToolClass] = classify,
    clock: Clock | None = None,
) -> tuple[Readiness, int]:
    """Assess ``tools``, compare with the record in ``state_file``, record the new assessment.

    Returns the assessment and the exit code (0, 10 or 11; see the module docstring).
    Raises ``ConfigError`` for an unreadable state file (which is then left as it is).
    """
    previous = read_state(state_file)
    current = assess(tools, classifier=classifier, clock=clock)
    before = {name for name, tool in (previous or {}).items() if tool is not None}
    now = set(current.available)
    readiness = Readiness(
        tools=current.tools,
        assessed_at=current.assessed_at,
        appeared=tuple(name for name in CRYPTO_CAPABILITIES if name in now - before),
        disappeared=tuple(name for name in CRYPTO_CAPABILITIES if name in before - now),
        first_run=previous is None,
        previous=previous or MappingProxyType({}),
    )
    write_state(state_file, readiness)
    return readiness, readiness.exit_code
