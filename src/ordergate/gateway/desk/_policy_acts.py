"""The owner's policy acts: applying a policy text (what loosens waits the owner's delay;
what only tightens ends every act still waiting to loosen), putting it in force on the
ledger, the policy file and the running guards, and following a policy another process
applied.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from ordergate.core import ConfigError, write_private
from ordergate.gateway.desk._delayed import UNVERIFIED, DelayedActs
from ordergate.gateway.desk._plans import Plan
from ordergate.ledger import Ledger, policy_sha256
from ordergate.owner import Credential, DelayedAct, OwnerAct
from ordergate.policy import (
    DEFAULT_POLICY_TOML,
    PolicyConfig,
    changed_keys,
    loosened_keys,
    parse_policy,
)
from ordergate.store import blocking

__all__ = ["PolicyActs", "PolicyHook", "policy_baseline"]

PolicyHook = Callable[[PolicyConfig], Awaitable[str | None]]
"""Told of a newly applied policy (the running gateway swaps it in); a note for the owner."""


def policy_baseline(ledger: Ledger) -> tuple[PolicyConfig, str | None]:
    """What a new policy is compared with: the one last applied (and its SHA-256), or, before
    any was, the defaults a fresh install writes."""
    applied = ledger.controls.applied_policy()
    if applied is None:
        return parse_policy(DEFAULT_POLICY_TOML), None
    return parse_policy(applied.text), applied.sha256


class PolicyActs:
    """The policy acts on ``ledger``; ``path`` is the policy file, ``on_applied`` swaps a
    policy into the running guards."""

    def __init__(
        self, *, ledger: Ledger, delayed: DelayedActs, path: Path, on_applied: PolicyHook | None
    ) -> None:
        self._ledger = ledger
        self._delayed = delayed
        self._path = path
        self._on_applied = on_applied
        applied = ledger.controls.applied_policy()
        self._followed = applied.sha256 if applied is not None else None

    def view(self) -> dict[str, Any]:
        """The policy in force and, when the policy file says something else, that pending
        text with the keys it changes and the keys it loosens (what applying it needs)."""
        applied = self._ledger.controls.applied_policy()
        baseline, sha = policy_baseline(self._ledger)
        body: dict[str, Any] = {
            "applied_text": applied.text if applied else DEFAULT_POLICY_TOML,
            "applied_sha256": sha,
            "path": str(self._path),
            "pending": None,
        }
        try:
            text = self._path.read_text(encoding="utf-8")
        except OSError:
            return body
        if policy_sha256(text) == sha:
            return body
        try:
            pending = parse_policy(text)
        except ConfigError as error:
            body["pending"] = {"text": text, "error": str(error)}
            return body
        body["pending"] = {
            "text": text,
            "sha256": policy_sha256(text),
            "changed": list(changed_keys(baseline, pending)),
            "loosened": list(loosened_keys(baseline, pending)),
        }
        return body

    async def apply(self, plan: Plan, credential: Credential | None) -> dict[str, Any]:
        """The authorised policy (or arming live): in force now, or waiting the delay when
        anything loosens."""
        text = str(plan.params["text"])
        policy = parse_policy(text)
        baseline, applied_sha = await blocking(policy_baseline, self._ledger)
        digest = policy_sha256(text)
        if digest == applied_sha:
            return {"applied": False, "sha256": digest, "message": "That policy is in force."}
        loosened = loosened_keys(baseline, policy)
        changed = changed_keys(baseline, policy)
        used = credential.value if credential is not None else "none"
        cancelled: list[dict[str, Any]] = []
        if loosened:
            arming = plan.act is OwnerAct.ARM_LIVE
            summary = (
                f"{'arm live: ' if arming else ''}apply policy sha256:{digest[:12]}… "
                f"loosening {', '.join(loosened)}"
            )
            payload = {"text": text, "sha256": digest, "credential": used}
            waiting = await self._delayed.defer(plan.act, summary, payload)
            if waiting is not None:
                return waiting
        elif changed:
            # A policy that only tightens ends every act that still waits to loosen.
            why = f"a tightening policy was applied (sha256:{digest[:12]}…)"
            cancelled = await self._delayed.cancel(None, why=why, by=UNVERIFIED)
        answer = await self.put_in_force(text, policy, used)
        return {**answer, "cancelled": cancelled} if cancelled else answer

    async def due(self, act: DelayedAct) -> str | None:
        """A policy whose delay has passed: put in force."""
        text = str(act.payload["text"])
        answer = await self.put_in_force(text, parse_policy(text), str(act.payload["credential"]))
        return "; ".join(answer["notes"]) or None

    async def put_in_force(
        self, text: str, policy: PolicyConfig, credential: str
    ) -> dict[str, Any]:
        """Make ``text`` the policy in force now (what loosens has waited, or there is none)."""
        baseline, _ = await blocking(policy_baseline, self._ledger)
        digest = policy_sha256(text)
        loosened = loosened_keys(baseline, policy)
        changed = changed_keys(baseline, policy)
        await blocking(
            self._ledger.controls.apply_policy,
            text,
            credential=credential,
            loosened=loosened,
            changed=changed,
        )
        self._followed = digest
        notes = [note for note in (await self._write(text), await self._swap(policy)) if note]
        return {
            "applied": True,
            "sha256": digest,
            "changed": list(changed),
            "loosened": list(loosened),
            "credential": credential,
            "notes": notes,
        }

    async def follow_applied(self) -> str | None:
        """Swap in a policy another process (a replica, the command line on the ledger) has
        applied since this desk last looked; a note when it did, else ``None``."""
        applied = await blocking(self._ledger.controls.applied_policy)
        if applied is None or applied.sha256 == self._followed:
            return None
        self._followed = applied.sha256
        note = await self._swap(parse_policy(applied.text))
        return f"now enforcing the policy applied elsewhere, sha256:{applied.sha256}" + (
            f"; {note}" if note else ""
        )

    async def _write(self, text: str) -> str | None:
        path = self._path
        try:
            await blocking(write_private, path, text.encode("utf-8"))
        except OSError as error:
            return (
                f"the policy is in force, but {path} could not be written ({error.strerror}): "
                "put the same text there before the gateway next starts"
            )
        return None

    async def _swap(self, policy: PolicyConfig) -> str | None:
        if self._on_applied is None:
            return None
        return await self._on_applied(policy)
