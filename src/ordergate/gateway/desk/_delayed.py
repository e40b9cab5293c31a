"""``DelayedActs``: the desk's side of the owner's delays (``ordergate.owner.Delays``).

The desk authorises an act that loosens as before, then, instead of doing it, hands it to
``defer``: it is recorded with its ``effective_at``, journalled, and announced at once (the
webhook, when one is set; the console lists it with its time left). ``run_due`` does what has
come due, each by the applier registered for its kind (``on_due``: the desk registers the
policy, arming live, approvals and caller tokens; the console registers passkeys), so a
process claims only the acts it can do. The gateway runs it on a timer, at start, and before
any owner read or act, so what is due is in effect before anything is decided on it.

Announcements are JSON objects: ``{"event": "owner_act_delayed" | "owner_act_effective" |
"owner_act_cancelled" | "owner_act_failed", "act": {…}}`` (``DelayedAct.as_json``), never a
secret.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio

from ordergate.core import command_hint
from ordergate.owner import DelayedAct, Delays, DelaySettings, OwnerAct
from ordergate.store import blocking

__all__ = ["UNVERIFIED", "Announce", "Applier", "DelayedActs"]

logger = logging.getLogger(__name__)

UNVERIFIED = "unverified"
"""The journal's identity for an act anyone may make (it only makes things safer: a denial, a
pause, a revocation, cancelling what waits)."""

Applier = Callable[[DelayedAct], Awaitable[str | None]]
"""Does a delayed act that has come due; a note for the record, or raises to mark it failed."""

Announce = Callable[[dict[str, Any]], Awaitable[None]]
"""Tells the owner (the webhook) what happened to a delayed act; must not raise."""


class DelayedActs:
    def __init__(self, delays: Delays, *, announce: Announce | None = None) -> None:
        self._delays = delays
        self._announce = announce
        self._appliers: dict[OwnerAct, Applier] = {}
        self._running = anyio.Lock()

    @property
    def delays(self) -> Delays:
        return self._delays

    def on_due(self, act: OwnerAct, applier: Applier) -> None:
        """Do delayed acts of kind ``act`` with ``applier`` in this process."""
        self._appliers[act] = applier

    async def settings(self) -> DelaySettings:
        return await blocking(self._delays.settings)

    async def defer(
        self, act: OwnerAct, summary: str, payload: Mapping[str, Any]
    ) -> dict[str, Any] | None:
        """Record ``act`` (authorised) to take effect after the owner's delay, and announce
        it; the answer the owner gets instead of the act's own, or ``None`` when the owner
        set no delay (the caller does the act now)."""
        delayed = await blocking(self._delays.defer, act, summary, payload)
        if delayed is None:
            return None
        await self._tell("owner_act_delayed", delayed)
        logger.warning(
            "owner act %s waits until %s: %s",
            act.value,
            delayed.effective_at.isoformat(),
            summary,
        )
        return {
            "delayed": delayed.as_json(now=delayed.authorised_at),
            "message": (
                f"This act loosens: it takes effect at {delayed.effective_at.isoformat()} "
                f"unless it is cancelled before (`{command_hint(f'owner cancel {delayed.id}')}`, "
                "the console, any "
                "tightening or a pause)."
            ),
        }

    async def pending(self) -> list[dict[str, Any]]:
        now = self._delays.now()
        return [a.as_json(now=now) for a in await blocking(self._delays.pending)]

    async def cancel(self, act_id: str | None, *, why: str, by: str) -> list[dict[str, Any]]:
        """Cancel one pending act (every one when ``act_id`` is ``None``), announced."""
        cancelled = await blocking(self._delays.cancel, act_id, why=why, by=by)
        for act in cancelled:
            await self._tell("owner_act_cancelled", act)
        return [a.as_json() for a in cancelled]

    async def run_due(self) -> list[DelayedAct]:
        """Do every delayed act this process can do whose time has come; what was done."""
        async with self._running:
            claimed = await blocking(self._delays.claim_due, frozenset(self._appliers))
            for act in claimed:
                applier = self._appliers.get(act.act)
                try:
                    if applier is not None:
                        await applier(act)
                except Exception as error:  # one act that cannot be done must not stop the rest
                    why = getattr(error, "message", None) or type(error).__name__
                    logger.warning("delayed owner act %s failed: %s", act.act.value, why)
                    await blocking(self._delays.failed, act, str(why))
                    await self._tell("owner_act_failed", act)
                    continue
                await self._tell("owner_act_effective", act)
            return claimed

    async def run_forever(self, every_s: float) -> None:
        """``run_due`` now and every ``every_s`` seconds (cancelled with the server)."""
        while True:
            try:
                await self.run_due()
            except Exception as error:  # one failed pass must not end the timer
                logger.warning("running delayed owner acts failed: %s", type(error).__name__)
            await anyio.sleep(every_s)

    async def _tell(self, event: str, act: DelayedAct) -> None:
        if self._announce is None:
            return
        try:
            await self._announce({"event": event, "act": act.as_json()})
        except Exception as error:  # the act is on the ledger either way
            logger.warning("announcing a delayed owner act failed: %s", type(error).__name__)
