"""What a tool does, read from the words of its name (underscores as spaces), never from its
description: a description is prose the upstream can change at will, a name is the contract.

The first word is the verb. An unrecognised verb counts as a write, so a new tool is never
taken for a harmless read; an override file pins corrections by name.
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from ordergate.core import ConfigError
from ordergate.inventory import ToolClass

__all__ = ["Classifier", "classify", "load_overrides", "name_words"]

_READ = frozenset({"get", "list", "search", "run", "find", "lookup", "fetch", "read"})
_SIMULATE = frozenset({"review", "preview", "simulate", "estimate", "quote"})
_MONEY = frozenset(
    {
        "place", "exercise", "replace", "submit", "execute", "buy", "sell", "trade",
        "transfer", "withdraw", "deposit", "send", "pay", "convert", "close",
    }
)  # fmt: skip
_CANCEL = frozenset({"cancel", "delete", "revoke"})
# Read verbs whose object is an enrolment or upgrade: the answer is a link to act on.
_ENROLL_OBJECTS = frozenset({"upgrade", "onboarding", "enrollment", "enrolment", "signup"})


@functools.lru_cache(maxsize=4096)  # a pure function of the name, asked on every call
def name_words(name: str) -> tuple[str, ...]:
    """``get_equity_quotes`` → ``("get", "equity", "quotes")``."""
    return tuple(word for word in name.lower().replace("-", "_").split("_") if word)


@functools.lru_cache(maxsize=4096)
def classify(name: str) -> ToolClass:
    """The class of tool ``name`` by its words alone."""
    words = name_words(name)
    if not words:
        return ToolClass.WRITE_CONFIRM
    verb = words[0]
    if verb in _READ:
        if _ENROLL_OBJECTS & set(words[1:]):
            return ToolClass.ENROLL_LINK
        return ToolClass.READ
    if verb in _SIMULATE:
        return ToolClass.SIMULATE
    if verb in _MONEY:
        return ToolClass.MONEY
    if verb in _CANCEL:
        return ToolClass.CANCEL
    return ToolClass.WRITE_CONFIRM


def load_overrides(path: Path) -> Mapping[str, ToolClass]:
    """Pinned classes from a TOML file: ``[classes]`` with ``tool_name = "money"`` lines.

    Raises ``ConfigError`` naming the key for an unknown table, a bad class or a bad file.
    """
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(str(path), f"cannot read the override file ({error})") from None
    unknown = set(document) - {"classes"}
    if unknown:
        raise ConfigError(sorted(unknown)[0], "unknown table (only [classes] is allowed)")
    table = document.get("classes", {})
    if not isinstance(table, dict):
        raise ConfigError("classes", 'must be a table of tool_name = "class"')
    pinned: dict[str, ToolClass] = {}
    for name, value in table.items():
        try:
            pinned[name] = ToolClass(value)
        except ValueError:
            choices = ", ".join(member.value for member in ToolClass)
            raise ConfigError(f"classes.{name}", f"must be one of {choices}") from None
    return MappingProxyType(pinned)


class Classifier:
    """``classify`` with pinned corrections."""

    def __init__(self, overrides: Mapping[str, ToolClass] | None = None) -> None:
        self._overrides = dict(overrides or {})

    def __call__(self, name: str) -> ToolClass:
        return self._overrides.get(name) or classify(name)
