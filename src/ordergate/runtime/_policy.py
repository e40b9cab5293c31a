"""The policy in force: the one the owner last applied, never merely whatever file is on disk.

An agent on the owner's machine may be able to edit the policy file; so a run starts only on
a file that is what the owner last applied (``ordergate policy apply``: its SHA-256 is on the
ledger), or that differs from it only by tightening — which needs no owner code, so it is
recorded as applied, with the keys it changed, and the run goes on. A file that loosens
anything (a higher cap, another symbol, live mode…) is refused, naming the keys and the
command that applies it with the owner code. Before any policy was applied, the file is
compared with the defaults a fresh install writes.

``PolicyNotApplied`` is a ``ConfigError`` (key ``policy``), so every entry point already
reports it as a configuration that cannot be used (exit 2).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ordergate.core import ConfigError, command_hint
from ordergate.ledger import Ledger, policy_sha256
from ordergate.policy import (
    DEFAULT_POLICY_TOML,
    PolicyConfig,
    changed_keys,
    loosened_keys,
    parse_policy,
)
from ordergate.runtime._settings import Settings

__all__ = ["PolicyNotApplied", "policy_in_force"]


class PolicyNotApplied(ConfigError):
    """The policy file loosens the policy the owner last applied."""

    def __init__(self, path: Path, loosened: Sequence[str], changed: Sequence[str]) -> None:
        self.path = path
        self.loosened = tuple(loosened)
        self.changed = tuple(changed)
        others = [key for key in changed if key not in loosened]
        also = f" (it also changes {', '.join(others)})" if others else ""
        super().__init__(
            "policy",
            f"{path} loosens {', '.join(loosened)} beyond the policy last applied{also}; "
            f"apply it with `{command_hint(f'policy apply {path}')}` (an owner act: it asks "
            "for the owner code)",
        )


def policy_in_force(settings: Settings, ledger: Ledger) -> tuple[PolicyConfig, str | None]:
    """The policy to enforce and a note for the person starting the run (``None``: nothing
    to say). Raises ``PolicyNotApplied`` for a file that loosens the applied policy, and
    ``ConfigError`` for a file that is not a valid policy."""
    text, note = settings.policy_text()
    policy = parse_policy(text)
    applied = ledger.controls.applied_policy()
    if applied is not None and applied.sha256 == policy_sha256(text):
        return policy, note
    try:
        baseline = parse_policy(applied.text if applied is not None else DEFAULT_POLICY_TOML)
    except ConfigError:
        # Applied by an ordergate that read keys this one does not: nothing to compare with.
        raise ConfigError(
            "policy",
            "the policy last applied cannot be read by this ordergate; apply the file with "
            f"`{command_hint(f'policy apply {settings.policy_path}')}`",
        ) from None
    loosened = loosened_keys(baseline, policy)
    changed = changed_keys(baseline, policy)
    if loosened:
        raise PolicyNotApplied(settings.policy_path, loosened, changed)
    ledger.controls.apply_policy(text, credential="none", loosened=(), changed=changed)
    if applied is None and not changed:
        recorded = f"policy: recorded {settings.policy_path} (the defaults) as applied"
    else:
        what = f": {', '.join(changed)}" if changed else ""
        recorded = f"policy: recorded {settings.policy_path} as applied (it only tightens{what})"
    return policy, "; ".join(part for part in (note, recorded) if part)
