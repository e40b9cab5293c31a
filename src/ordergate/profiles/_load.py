"""Profile files: the built-ins shipped with ordergate plus ``ORDERGATE_HOME/profiles``.

A profile file is YAML (read with ``yaml.safe_load`` only) holding a mapping::

    name: reporter               # required; must equal the file name (reporter.yaml)
    description: Reads the account for a daily report
    permissions: [account.read, orders.read]    # required, exhaustive, may be empty
    system_prompt: |             # optional; served as the MCP instructions and by gate_how
      You report; you never trade.
    policy:                      # optional overrides that only tighten (see _overrides)
      limits: {max_order_usd: "25"}

Loading fails closed with ``ProfileError`` (a ``ConfigError``) naming the file and the key:
malformed YAML, a key given twice, a document that is not a mapping, an unknown key, a
missing or bad ``name`` or ``permissions``, an unknown permission (the message lists the
vocabulary), an override looser than the account policy. The file name must be the
profile's name plus ``.yaml``, so the file a person edits is the profile a token or a
consent page names; names are lower-case letters, digits, ``-`` and ``_``. A home file may
not redefine a built-in, and a ``.yml`` file is refused rather than silently skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from ordergate.core import ConfigError
from ordergate.policy import PolicyConfig
from ordergate.profiles._errors import ProfileError
from ordergate.profiles._overrides import check_tightens, parse_overrides
from ordergate.profiles._permissions import Permission
from ordergate.profiles._profile import Profile

__all__ = ["BUILTIN_PROFILES", "DEFAULT_PROFILE", "Profiles", "load_profiles"]

DEFAULT_PROFILE = "monitor"
"""The profile a connection gets when the person chooses none: reads only."""

BUILTIN_PROFILES = ("monitor", "researcher", "trader")

_KEYS = ("name", "description", "permissions", "system_prompt", "policy")
_NAME = re.compile(r"[a-z][a-z0-9_-]{0,63}")
_VOCABULARY = ", ".join(permission.value for permission in Permission)


class Profiles(Mapping[str, Profile]):
    """Every loaded profile by name: the built-ins first, then the home files by name."""

    __slots__ = ("_by_name",)

    def __init__(self, profiles: Mapping[str, Profile]) -> None:
        self._by_name = dict(profiles)

    def __getitem__(self, name: str) -> Profile:
        return self._by_name[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_name)

    def __len__(self) -> int:
        return len(self._by_name)

    def __repr__(self) -> str:
        return f"Profiles({', '.join(self._by_name)})"

    @property
    def default(self) -> Profile:
        """The ``monitor`` profile."""
        return self._by_name[DEFAULT_PROFILE]

    def require(self, name: str) -> Profile:
        """The profile called ``name``. Raises ``ConfigError`` (key ``profile``) listing the
        known names when there is none."""
        try:
            return self._by_name[name]
        except KeyError:
            known = ", ".join(self._by_name)
            raise ConfigError("profile", f"no profile named {name!r} (known: {known})") from None


def _duplicate_key(text: str) -> str | None:
    """The first mapping key written twice (``safe_load`` would keep the last silently)."""
    pending = [yaml.compose(text, Loader=yaml.SafeLoader)]
    visited: set[int] = set()  # an alias shares its node: walk each once
    while pending:
        node = pending.pop()
        if id(node) in visited:
            continue
        visited.add(id(node))
        if isinstance(node, yaml.MappingNode):
            seen: set[str] = set()
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode):
                    if key.value in seen:
                        return str(key.value)
                    seen.add(key.value)
                pending.append(value)
        elif isinstance(node, yaml.SequenceNode):
            pending.extend(node.value)
    return None


def _read_yaml(text: str, source: str) -> Any:
    try:
        document = yaml.safe_load(text)
        duplicate = _duplicate_key(text)
    except yaml.YAMLError as error:
        where = getattr(error, "problem_mark", None)
        line = f" at line {where.line + 1}" if where is not None else ""
        problem = getattr(error, "problem", None) or type(error).__name__
        raise ProfileError(source, "", f"not valid YAML{line}: {problem}") from None
    if duplicate is not None:
        raise ProfileError(source, duplicate, "given twice")
    return document


def _permissions(source: str, value: object) -> frozenset[Permission]:
    if not isinstance(value, list):
        raise ProfileError(source, "permissions", f"must be a list drawn from: {_VOCABULARY}")
    granted: set[Permission] = set()
    for index, item in enumerate(value):
        try:
            granted.add(Permission(item))
        except ValueError:
            raise ProfileError(
                source,
                f"permissions[{index}]",
                f"unknown permission {item!r}; the vocabulary is: {_VOCABULARY}",
            ) from None
    return frozenset(granted)


def _optional_text(source: str, key: str, value: object) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise ProfileError(source, key, "must be text")


def _parse(text: str, *, source: str, stem: str, policy: PolicyConfig) -> Profile:
    document = _read_yaml(text, source)
    if not isinstance(document, dict):
        raise ProfileError(source, "", f"must be a mapping with the keys {', '.join(_KEYS)}")
    for key in document:
        if key not in _KEYS:
            raise ProfileError(source, str(key), f"unknown key (known: {', '.join(_KEYS)})")
    for key in ("name", "permissions"):
        if key not in document:
            raise ProfileError(source, key, "missing")
    name = document["name"]
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ProfileError(
            source, "name", "must be lower-case letters, digits, '-' or '_', starting a letter"
        )
    if name != stem:
        raise ProfileError(
            source, "name", f"{name!r} differs from the file name; name the file {name}.yaml"
        )
    permissions = _permissions(source, document["permissions"])
    description = _optional_text(source, "description", document.get("description")) or ""
    system_prompt = _optional_text(source, "system_prompt", document.get("system_prompt"))
    try:
        overrides = parse_overrides(document.get("policy"))
        check_tightens(overrides, policy)
    except ConfigError as error:
        raise ProfileError(source, error.key, error.reason) from None
    return Profile(
        name=name,
        description=description,
        permissions=permissions,
        system_prompt=system_prompt,
        overrides=overrides,
    )


def _builtins(policy: PolicyConfig) -> dict[str, Profile]:
    folder = resources.files("ordergate.profiles").joinpath("builtin")
    loaded: dict[str, Profile] = {}
    for name in BUILTIN_PROFILES:
        text = folder.joinpath(f"{name}.yaml").read_text(encoding="utf-8")
        loaded[name] = _parse(text, source=f"builtin/{name}.yaml", stem=name, policy=policy)
    return loaded


def _home_files(folder: Path) -> list[Path]:
    try:
        entries = sorted(folder.iterdir())
    except FileNotFoundError:
        return []
    except OSError as error:
        raise ProfileError(str(folder), "", f"cannot list ({error.strerror})") from None
    for path in entries:
        if path.suffix == ".yml":
            raise ProfileError(str(path), "", "profile files end in .yaml; rename it")
    return [path for path in entries if path.suffix == ".yaml"]


def load_profiles(home: Path | None, policy: PolicyConfig) -> Profiles:
    """The built-in profiles plus ``home/profiles/*.yaml``, each checked against ``policy``.

    ``home`` is ``ORDERGATE_HOME`` (``None``, or no ``profiles`` folder: built-ins only).
    Raises ``ProfileError`` (a ``ConfigError``) naming the file and the key of the first
    problem; one bad file refuses the whole set, so nothing runs with half the profiles.
    """
    profiles = _builtins(policy)
    if home is not None:
        for path in _home_files(home / "profiles"):
            source = str(path)
            if path.stem in profiles:
                raise ProfileError(
                    source, "name", f"{path.stem!r} is a built-in profile and cannot be redefined"
                )
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as error:
                reason = getattr(error, "strerror", None) or "not UTF-8 text"
                raise ProfileError(source, "", f"cannot read ({reason})") from None
            profiles[path.stem] = _parse(text, source=source, stem=path.stem, policy=policy)
    return Profiles(profiles)
