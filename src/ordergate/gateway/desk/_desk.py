"""``OwnerDesk``: every owner act, in one place, for the owner channel and the command line.

The running gateway serves it on its owner socket (``_channel``, ``_routes``) so the owner's
commands work when the gateway runs as its own OS user; with no gateway running, the command
line builds one over the ledger directly (``ordergate.cli``). An act that may need the owner
code is two steps: ``prepare`` stores it as the owner will be shown it (a ``PreparedAct``:
summary lines and a digest, ``_plans``), and ``authorize_act`` runs exactly that, once, after
the ``OwnerAuthority`` spent the code on that digest; each act that only makes things safer
needs none:

=====================  ===========================  ==========================================
act                    owner code                   what it does
=====================  ===========================  ==========================================
``approve``            always                       the held order is reviewed, re-checked,
                                                    placed (``Guard.approve``, ``by="owner"``)
``deny``               never                        the held order ends, its hold released
``pause``              never                        every process refuses new orders
``resume``             always                       new orders are accepted again
``apply_policy``       when anything loosens        the text is the policy in force (its
                       (``arm_live`` if it goes     SHA-256 on the ledger), written to the
                       live)                        policy file, swapped into the guards
``revoke``             never                        the connection and its tokens are erased;
                                                    ``caller:NAME`` (or ``caller:NAME#MINT``):
                                                    that caller's tokens are refused at once
``mint``               when the profile can place   a caller token signed with the host's key,
                       or cancel                    its mint on the ledger; a name belongs to
                                                    the first profile it was minted for
``cancel_delayed``     never                        an act that still waits ends unmade
=====================  ===========================  ==========================================

An act that loosens — a looser policy, arming live, a trading caller token, an approval above
the owner's threshold — is authorised, then waits the owner's delay (``DelayedActs``,
``_delayed``) before it is done: its applier (one per act, ``_apply_…``) defers it. A policy
that only tightens, a pause, a denial and the owner's cancel end what waits. What has come due
is done before any owner read or act.

Every answer is a JSON-ready ``dict``; a refusal is a ``DeskError`` (status, code, sentence).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ordergate.callers import MAX_TTL, MIN_TTL, CallerKey, CallerVerifier, mint
from ordergate.core import (
    Clock,
    ConfigError,
    RealtimeClock,
    SteppedClock,
    to_wire,
    write_private,
)
from ordergate.execution import Guard, deny_approval
from ordergate.gateway._caller_mints import claim_name, name_profile, record_mint, revoke_mints
from ordergate.gateway._owner import digest_in
from ordergate.gateway.desk._connections import (
    CALLER_PREFIX,
    client_names,
    list_caller_mints,
    list_connections,
)
from ordergate.gateway.desk._delayed import DelayedActs
from ordergate.gateway.desk._errors import DeskError
from ordergate.gateway.desk._plans import (
    TRADING_PERMISSIONS,
    Plan,
    approve_plan,
    mint_plan,
    policy_plan,
    resume_plan,
)
from ordergate.gateway.oauth import GatewayStore
from ordergate.ledger import (
    AccountBusyError,
    Approval,
    ApprovalState,
    FilingRecord,
    Ledger,
    LedgerError,
    policy_sha256,
)
from ordergate.owner import (
    CODE_MISSING,
    OWNER_IDENTITY,
    Credential,
    DelayedAct,
    Delays,
    OwnerAct,
    OwnerAuthority,
    OwnerRefused,
    PreparedActs,
    PreparedRefused,
    act_digest,
)
from ordergate.policy import (
    DEFAULT_POLICY_TOML,
    PolicyConfig,
    changed_keys,
    loosened_keys,
    parse_policy,
)
from ordergate.profiles import Profiles
from ordergate.store import blocking

__all__ = [
    "GuardFor",
    "OwnerDesk",
    "policy_baseline",
    "profile_trades",
]

APPROVAL_GRACE = timedelta(minutes=5)
"""How long an approval that waited the owner's delay stays open after it is due."""


def profile_trades(profiles: Profiles, name: str | None) -> bool:
    """Whether the profile called ``name`` can place or cancel orders (an unknown one counts
    as trading: nothing is granted by not finding it)."""
    profile = profiles.get(name) if name is not None else None
    return profile is None or bool(profile.permissions & TRADING_PERMISSIONS)


UNVERIFIED = "unverified"
"""The journal's identity for an act anyone may make (it only makes things safer)."""

GuardFor = Callable[[FilingRecord], AbstractAsyncContextManager[Guard]]
"""The guard that carries a held filing on (the running gateway's, or one opened for it)."""

PolicyHook = Callable[[PolicyConfig], Awaitable[str | None]]
"""Told of a newly applied policy (the running gateway swaps it in); a note for the owner."""


def policy_baseline(ledger: Ledger) -> tuple[PolicyConfig, str | None]:
    """What a new policy is compared with: the one last applied (and its SHA-256), or, before
    any was, the defaults a fresh install writes."""
    applied = ledger.controls.applied_policy()
    if applied is None:
        return parse_policy(DEFAULT_POLICY_TOML), None
    return parse_policy(applied.text), applied.sha256


@dataclass(frozen=True, slots=True)
class _Policy:
    path: Path
    on_applied: PolicyHook | None


class OwnerDesk:
    """The owner's acts over one ledger (and, in a running gateway, its guards and store)."""

    def __init__(
        self,
        *,
        authority: OwnerAuthority,
        ledger: Ledger,
        store: GatewayStore,
        guard_for: GuardFor,
        mode: str,
        policy_path: Path,
        profiles: Profiles,
        caller_key: CallerKey | None,
        on_policy: PolicyHook | None = None,
        clock: Clock | None = None,
        delayed: DelayedActs | None = None,
    ) -> None:
        self._authority = authority
        self._ledger = ledger
        self._store = store
        self._guard_for = guard_for
        self._mode = mode
        self._policy = _Policy(policy_path, on_policy)
        self._profiles = profiles
        self._caller_key = caller_key
        self._clock = clock or RealtimeClock()
        applied = ledger.controls.applied_policy()
        self._followed = applied.sha256 if applied is not None else None
        self._prepared = PreparedActs(ledger.engine, clock=self._clock)
        self._delayed = delayed or DelayedActs(Delays(ledger, clock=self._clock))
        self._delayed.on_due(OwnerAct.POLICY_APPLY, self._policy_due)
        self._delayed.on_due(OwnerAct.ARM_LIVE, self._policy_due)
        self._delayed.on_due(OwnerAct.APPROVE, self._approval_due)
        self._delayed.on_due(OwnerAct.TOKEN_MINT, _collect_later)

    @property
    def delayed(self) -> DelayedActs:
        """The acts that wait for the owner's delay (the console registers passkeys here)."""
        return self._delayed

    # -- reads ----------------------------------------------------------------------------

    async def status(self) -> dict[str, Any]:
        await self._delayed.run_due()

        def read() -> dict[str, Any]:
            owner = self._authority.status()
            pause = self._ledger.controls.pause_state()
            applied = self._ledger.controls.applied_policy()
            return {
                "owner": owner.as_json(),
                "paused": pause.paused,
                "pause_reason": pause.reason if pause.paused else None,
                "policy_sha256": applied.sha256 if applied else None,
                "mode": self._mode,
                "delays": self._delayed.delays.settings().to_json(),
                "waiting_acts": len(self._delayed.delays.pending()),
            }

        return await blocking(read)

    async def approvals(self) -> list[dict[str, Any]]:
        """The waiting orders: each approval's announcement, the reasons its filing was held,
        and the registered name of the client whose connection filed it (when one did)."""
        from ordergate.runtime import approval_announcement

        await self._delayed.run_due()

        def read() -> list[dict[str, Any]]:
            names = client_names(self._ledger.engine)
            applied = policy_baseline(self._ledger)[0].approval
            rule = f'the policy asks the owner (approval = "{applied}")'
            waiting = []
            for approval in self._ledger.approvals.pending():
                record = self._ledger.filing(approval.filing_id)
                digest = digest_in(record.identity)
                waiting.append(
                    {
                        **approval_announcement(approval, record),
                        "held_because": [*record.reasons, rule],
                        "client_name": names.get(digest) if digest else None,
                    }
                )
            return waiting

        return await blocking(read)

    @property
    def ledger(self) -> Ledger:
        """The ledger the desk acts on (the console reads filings from it)."""
        return self._ledger

    async def policy(self) -> dict[str, Any]:
        """The policy in force and, when the policy file says something else, that pending
        text with the keys it changes and the keys it loosens (what applying it needs)."""

        def read() -> dict[str, Any]:
            applied = self._ledger.controls.applied_policy()
            baseline, sha = policy_baseline(self._ledger)
            body: dict[str, Any] = {
                "applied_text": applied.text if applied else DEFAULT_POLICY_TOML,
                "applied_sha256": sha,
                "path": str(self._policy.path),
                "pending": None,
            }
            try:
                text = self._policy.path.read_text(encoding="utf-8")
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

        return await blocking(read)

    async def client_names(self) -> dict[str, str]:
        """Each connection's digest (what identities on the record keep) to its client's
        registered name."""
        return await blocking(client_names, self._ledger.engine)

    async def connections(self) -> list[dict[str, Any]]:
        """The connections, then the caller tokens minted (each as ``caller:NAME#MINT``)."""

        def read() -> list[dict[str, Any]]:
            now = RealtimeClock().now()
            engine = self._store.engine
            return [*list_connections(engine), *list_caller_mints(engine, now=now)]

        return await blocking(read)

    async def pending_acts(self) -> list[dict[str, Any]]:
        """The acts that loosen and wait for the owner's delay, each with its time left."""
        await self._delayed.run_due()
        return await self._delayed.pending()

    async def cancel_delayed(self, act_id: str | None) -> dict[str, Any]:
        """End a waiting act unmade (every one when ``act_id`` is ``None``): no code, since
        it only makes things safer. 404 when ``act_id`` names no waiting act."""
        cancelled = await self._delayed.cancel(act_id, why="cancelled by the owner", by=UNVERIFIED)
        if act_id is not None and not cancelled:
            raise DeskError(404, "unknown_delayed_act", "No waiting act has that id.")
        return {"cancelled": cancelled}

    # -- prepared acts: what the owner is shown is what runs --------------------------------

    async def prepare(self, act: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """Prepare ``act`` (``approve``, ``resume``, ``policy_apply``, ``token_mint``) with
        ``params`` for the owner to authorise: its id, summary lines, digest, expiry and
        whether it needs the code. Raises ``DeskError`` for an act that cannot be done."""
        plan = await self._plan(act, params)
        try:
            prepared = await blocking(
                self._prepared.prepare,
                plan.act,
                plan.params,
                plan.summary,
                binds=plan.binds,
                needs_code=plan.needs_code,
            )
        except OwnerRefused as refused:  # pragma: no cover - prepare refuses nothing yet
            raise DeskError.from_refusal(refused) from None
        return prepared.as_json()

    async def authorize_act(
        self, act_id: str, digest: str, code: str | None, *, vouched: Credential | None = None
    ) -> dict[str, Any]:
        """Run the prepared act ``act_id`` exactly as prepared, once, if ``digest`` is its
        digest, nothing it was prepared on changed, and (where it needs one) ``code`` is a
        current owner code, spent on that digest only (``vouched``: the console verified
        the owner's passkey itself). The same code again for the same act is given the
        first answer. Raises ``DeskError`` otherwise."""
        await self._delayed.run_due()
        try:
            prepared = await blocking(self._prepared.get, act_id, digest)
        except PreparedRefused as refused:
            raise DeskError(refused.status, refused.reason, str(refused)) from None
        if prepared.state == "done":
            if prepared.needs_code and vouched is None:
                await self._authorize(code, prepared.act, digest=digest, act_id=act_id)
            return _replayed(prepared.outcome or {})
        if prepared.state != "prepared":
            raise DeskError(409, "prepared_act_used", "That prepared act is already running.")
        plan = await self._plan(_REQUESTED.get(prepared.act, prepared.act), prepared.params)
        if act_digest(plan.act, plan.params, plan.summary, plan.binds) != prepared.digest:
            raise DeskError(
                409,
                "prepared_act_changed",
                "What that act was prepared on changed since; prepare it again.",
            )
        credential: Credential | None = None
        if plan.needs_code:
            detail = {**plan.detail, "act_id": act_id}
            if vouched is not None and plan.act is OwnerAct.APPROVE:
                await self._passkey_may_approve(plan)
            if vouched is not None:
                credential = await self._vouch(plan.act, vouched, digest=digest, **detail)
            else:
                credential = await self._authorize(code, plan.act, digest=digest, **detail)
        if not await blocking(self._prepared.claim, act_id):
            raise DeskError(409, "prepared_act_used", "That prepared act was already run.")
        try:
            outcome = await self._apply(plan, credential)
        except DeskError as error:
            await blocking(
                self._prepared.finish, act_id, error.as_json() | {"status": error.status}
            )
            raise
        await blocking(self._prepared.finish, act_id, _kept(outcome))
        return outcome

    async def _plan(self, act: str, params: Mapping[str, Any]) -> Plan:
        if act == OwnerAct.APPROVE:
            approval_id = _param(params, "approval_id")
            approval, record = await self._pending(approval_id)
            if await self._approval_waits(approval_id):
                raise DeskError(
                    409,
                    "approval_waiting",
                    "That approval already waits the owner's delay; nothing changed.",
                )
            return approve_plan(approval, record)
        if act == OwnerAct.RESUME:
            return resume_plan(await blocking(self._ledger.controls.pause_state))
        if act == OwnerAct.POLICY_APPLY:
            baseline, applied_sha = await blocking(policy_baseline, self._ledger)
            return policy_plan(_param(params, "text"), baseline, applied_sha)
        if act == OwnerAct.TOKEN_MINT:
            return await blocking(self._mint_plan, params)
        raise DeskError(400, "unknown_act", "No such owner act to prepare.")

    async def _apply(self, plan: Plan, credential: Credential | None) -> dict[str, Any]:
        # One function per act: what runs once the act is authorised (a delay, for an act
        # that loosens, goes between the two).
        appliers = {
            OwnerAct.APPROVE: self._apply_approve,
            OwnerAct.RESUME: self._apply_resume,
            OwnerAct.POLICY_APPLY: self._apply_policy,
            OwnerAct.ARM_LIVE: self._apply_policy,
            OwnerAct.TOKEN_MINT: self._apply_mint,
        }
        return await appliers[plan.act](plan, credential)

    # -- acts on held orders ---------------------------------------------------------------

    async def approve(
        self, approval_id: str, code: str | None, *, vouched: Credential | None = None
    ) -> dict[str, Any]:
        """Prepare and authorise in one go (the console, which showed the approval itself);
        ``vouched``: the console verified the owner's passkey itself (no code then)."""
        return await self._prepared_now(
            OwnerAct.APPROVE, {"approval_id": approval_id}, code, vouched=vouched
        )

    async def _passkey_may_approve(self, plan: Plan) -> None:
        """An order above the owner's threshold needs the code, never a passkey alone."""
        _, record = await self._pending(str(plan.params["approval_id"]))
        threshold = (await self._delayed.settings()).approve_above
        if threshold is not None and record.notional > threshold:
            raise DeskError(
                401,
                CODE_MISSING,
                "This order is above the owner's approval threshold: approving it needs the "
                "owner code, not a passkey alone.",
            )

    async def _apply_approve(self, plan: Plan, credential: Credential | None) -> dict[str, Any]:
        approval_id = str(plan.params["approval_id"])
        _, record = await self._pending(approval_id)
        threshold = (await self._delayed.settings()).approve_above
        if threshold is not None and record.notional > threshold:
            terms = record.terms
            summary = (
                f"approve {terms.get('side')} {terms.get('symbol')} "
                f"${to_wire(record.notional)} (above ${to_wire(threshold)}) · "
                f"order {record.id}"
            )
            waiting = await self._delayed.defer(OwnerAct.APPROVE, summary, dict(plan.detail))
            if waiting is not None:
                # The approval stays open until its delay has passed, and a little after.
                until = datetime.fromisoformat(waiting["delayed"]["effective_at"]) + APPROVAL_GRACE
                await blocking(self._ledger.approvals.hold_until, approval_id, until)
                return waiting
        return await self._place_approved(record, approval_id)

    async def _approval_waits(self, approval_id: str) -> bool:
        waiting = await blocking(self._delayed.delays.pending)
        return any(
            act.act is OwnerAct.APPROVE and act.payload["approval_id"] == approval_id
            for act in waiting
        )

    async def _place_approved(self, record: FilingRecord, approval_id: str) -> dict[str, Any]:
        # ``Guard.approve`` carries the order on in its account's turn, like any other order.
        async with self._guard_for(record) as guard:
            try:
                outcome = await guard.approve(approval_id, by=OWNER_IDENTITY)
            except AccountBusyError as busy:
                raise _busy(busy) from None
            mode = "paper" if guard.paper else "live"
        return outcome.as_json(mode=mode)

    async def deny(self, approval_id: str) -> dict[str, Any]:
        _, record = await self._pending(approval_id)
        try:
            async with self._ledger.turns.account(record.account):
                outcome = await blocking(deny_approval, self._ledger, approval_id, by=UNVERIFIED)
        except AccountBusyError as busy:
            raise _busy(busy) from None
        for waiting in await blocking(self._delayed.delays.pending):
            if waiting.act is OwnerAct.APPROVE and waiting.payload["approval_id"] == approval_id:
                await self._delayed.cancel(waiting.id, why="the order was denied", by=UNVERIFIED)
        return outcome.as_json(mode=self._mode)

    async def _approval_due(self, act: DelayedAct) -> str | None:
        approval_id = str(act.payload["approval_id"])
        _, record = await self._pending(approval_id)
        outcome = await self._place_approved(record, approval_id)
        return f"the approved order is {outcome.get('status')}"

    async def _pending(self, approval_id: str) -> tuple[Approval, FilingRecord]:
        """A pending approval and the filing it holds; 404 for none, 409 when decided."""

        def read() -> tuple[Approval, FilingRecord]:
            approval = self._ledger.approvals.get(approval_id)
            return approval, self._ledger.filing(approval.filing_id)

        try:
            approval, record = await blocking(read)
        except (LedgerError, ValueError):
            raise DeskError(404, "unknown_approval", "No approval has that id.") from None
        if approval.state is not ApprovalState.PENDING:
            raise DeskError(
                409,
                "approval_decided",
                f"That approval was already decided ({approval.state.value}); nothing changed.",
            )
        return approval, record

    # -- the kill switch -------------------------------------------------------------------

    async def pause(self, reason: str, *, cancel_open: bool = False) -> dict[str, Any]:
        """Pause; with ``cancel_open`` also cancel every working order the gateway filed, on
        every account, once the pause is on the ledger (so none is placed after it): each
        account's by its guard (``guard_for``), in the account's turn (``Guard.cancel_open``)."""

        def act() -> dict[str, Any]:
            current = self._ledger.controls.pause_state()
            if current.paused:
                return _pause_json(current, changed=False)
            return _pause_json(self._ledger.controls.pause(reason, by=UNVERIFIED), changed=True)

        paused = await blocking(act)
        cancelled = await self._delayed.cancel(None, why="the owner paused", by=UNVERIFIED)
        answer = {**paused, "cancelled": cancelled} if cancelled else paused
        if not cancel_open:
            return answer
        return {**answer, "cancels": await self._cancel_working()}

    async def _cancel_working(self) -> list[dict[str, Any]]:
        first_of: dict[str, FilingRecord] = {}
        for record in await blocking(self._ledger.open_filings):
            first_of.setdefault(record.account, record)
        reports: list[dict[str, Any]] = []
        for record in first_of.values():
            async with self._guard_for(record) as guard:
                done = await guard.cancel_open(identity=UNVERIFIED, why="the owner paused")
            reports.extend(report.as_json() for report in done)
        return reports

    async def resume(self, code: str | None) -> dict[str, Any]:
        return await self._prepared_now(OwnerAct.RESUME, {}, code)

    async def _apply_resume(self, plan: Plan, credential: Credential | None) -> dict[str, Any]:
        current = await blocking(self._ledger.controls.pause_state)
        if not current.paused:
            return {"paused": False, "changed": False}
        await blocking(self._ledger.controls.resume, by=OWNER_IDENTITY)
        return {"paused": False, "changed": True, "was": _pause_json(current, changed=False)}

    # -- the policy ------------------------------------------------------------------------

    async def apply_policy(self, text: str, code: str | None) -> dict[str, Any]:
        return await self._prepared_now(OwnerAct.POLICY_APPLY, {"text": text}, code)

    async def _apply_policy(self, plan: Plan, credential: Credential | None) -> dict[str, Any]:
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
        answer = await self._put_in_force(text, policy, used)
        return {**answer, "cancelled": cancelled} if cancelled else answer

    async def _policy_due(self, act: DelayedAct) -> str | None:
        text = str(act.payload["text"])
        answer = await self._put_in_force(text, parse_policy(text), str(act.payload["credential"]))
        return "; ".join(answer["notes"]) or None

    async def _put_in_force(
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
        notes = [
            note for note in (await self._write_policy(text), await self._swap(policy)) if note
        ]
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

    async def _write_policy(self, text: str) -> str | None:
        path = self._policy.path
        try:
            await blocking(write_private, path, text.encode("utf-8"))
        except OSError as error:
            return (
                f"the policy is in force, but {path} could not be written ({error.strerror}): "
                "put the same text there before the gateway next starts"
            )
        return None

    async def _swap(self, policy: PolicyConfig) -> str | None:
        if self._policy.on_applied is None:
            return None
        return await self._policy.on_applied(policy)

    # -- connections and caller tokens -----------------------------------------------------

    async def revoke(self, connection_id: str) -> dict[str, Any]:
        """Erase a connection with its tokens; or, for ``caller:NAME`` (every token minted for
        the name) or ``caller:NAME#MINT`` (that one), put the caller's tokens on the ledger's
        denylist, which every replica reads on each request. ``revoked``: whether anything
        was left to revoke."""
        if connection_id.startswith(CALLER_PREFIX):
            return await self._revoke_caller(connection_id)
        erased = await blocking(self._store.erase, connection_id)
        if erased:
            await self._revoked(
                "connection_revoked",
                "a connection was revoked on the owner's desk",
                {"connection_id": connection_id},
            )
        return {"connection_id": connection_id, "revoked": erased}

    async def _revoke_caller(self, connection_id: str) -> dict[str, Any]:
        caller, _, mint_id = connection_id.removeprefix(CALLER_PREFIX).partition("#")
        now = RealtimeClock().now()  # security time
        revoked = await blocking(revoke_mints, self._store.engine, caller, mint_id or None, now)
        if revoked:
            await self._revoked(
                "caller_revoked",
                "caller tokens were revoked on the owner's desk",
                {"caller": caller, "mint_ids": revoked},
            )
        return {"connection_id": connection_id, "revoked": bool(revoked), "mints": revoked}

    async def _revoked(self, kind: str, why: str, detail: dict[str, Any]) -> None:
        """Journal a revocation (anyone may revoke: it only takes access away)."""
        await blocking(
            self._ledger.journal.append, identity=UNVERIFIED, kind=kind, why=why, detail=detail
        )

    async def mint(
        self,
        *,
        caller: str,
        profile: str,
        ttl_s: int,
        connection: str | None,
        code: str | None,
    ) -> dict[str, Any]:
        params = {"caller": caller, "profile": profile, "ttl_s": ttl_s, "connection": connection}
        return await self._prepared_now(OwnerAct.TOKEN_MINT, params, code)

    def _mint_plan(self, params: Mapping[str, Any]) -> Plan:
        caller, name = _param(params, "caller"), _param(params, "profile")
        ttl_s, connection = params.get("ttl_s"), params.get("connection")
        if isinstance(ttl_s, bool) or not isinstance(ttl_s, int):
            raise DeskError(400, "invalid_request", "ttl_s must be a whole number of seconds.")
        if connection is not None and not isinstance(connection, str):
            raise DeskError(400, "invalid_request", "connection must be a string.")
        chosen = self._profiles.get(name)
        if chosen is None:
            defined = ", ".join(sorted(self._profiles))
            raise DeskError(400, "unknown_profile", f"No such profile (defined: {defined}).")
        if not MIN_TTL <= timedelta(seconds=ttl_s) <= MAX_TTL:
            raise DeskError(400, "invalid_ttl", "The lifetime must be 1 s to 24 h.")
        if self._caller_key is None:
            raise DeskError(
                503,
                "no_caller_key",
                "This gateway has no caller-token key: set ORDERGATE_CALLER_TOKEN_KEY or "
                "ORDERGATE_MASTER_SECRET where it runs.",
            )
        held = name_profile(self._store.engine, caller)
        if held is not None and held != name:
            raise _name_taken(held)
        request = {"caller": caller, "profile": name, "ttl_s": ttl_s, "connection": connection}
        # A trading token whose delay has passed is minted, without a code, when asked again.
        due = bool(chosen.permissions & TRADING_PERMISSIONS) and self._delayed.delays.collectable(
            OwnerAct.TOKEN_MINT, request
        )
        return mint_plan(
            caller=caller, profile=chosen, ttl_s=ttl_s, connection=connection, waited=due
        )

    async def _apply_mint(self, plan: Plan, credential: Credential | None) -> dict[str, Any]:
        params = plan.params
        caller, profile = str(params["caller"]), str(params["profile"])
        key = self._caller_key
        assert key is not None, "the plan refuses a desk without a caller key"
        if plan.binds.get("trading"):
            request = dict(params)
            collected = await blocking(self._delayed.delays.collect, OwnerAct.TOKEN_MINT, request)
            if collected is None and credential is None:
                raise DeskError(
                    409,
                    "prepared_act_changed",
                    "The waited token can no longer be collected; prepare it again.",
                )
            if collected is None:
                summary = (
                    f"mint a trading caller token for {caller} ({profile}, {params['ttl_s']} s)"
                )
                answer = await self._delayed.defer(OwnerAct.TOKEN_MINT, summary, request)
                if answer is not None:
                    answer["message"] += (
                        " Once it has, run the same command again to get the token."
                    )
                    return answer
        now = RealtimeClock().now()  # security time: a caller token expires by the wall clock
        try:
            token = mint(
                key,
                caller=caller,
                profile=profile,
                ttl=timedelta(seconds=int(params["ttl_s"])),
                now=now,
                connection=params.get("connection"),
            )
        except ConfigError as error:
            raise DeskError(400, "invalid_token_claim", f"Cannot mint: {error}.") from None
        claims = CallerVerifier(key, SteppedClock(start=now), cache_size=0).verify(token.reveal())
        assert claims is not None, "a freshly minted token verifies under its own key"
        engine = self._store.engine
        held = await blocking(claim_name, engine, caller, profile, now)
        if held != profile:  # another process claimed the name for another profile meanwhile
            raise _name_taken(held)
        await blocking(record_mint, engine, claims, params.get("connection"), now)
        return {
            "token": token.reveal(),
            "caller": caller,
            "profile": profile,
            "mint_id": claims.mint_id,
            "expires_at": claims.expires_at.isoformat(),
            "key_source": key.source.value,
        }

    # -- the owner code ---------------------------------------------------------------------

    async def _prepared_now(
        self,
        act: OwnerAct,
        params: Mapping[str, Any],
        code: str | None,
        *,
        vouched: Credential | None = None,
    ) -> dict[str, Any]:
        """Prepare ``act`` and authorise it at once: for a caller that showed the owner the
        act itself (the console's pages) or has nobody to show it to."""
        prepared = await self.prepare(act, params)
        return await self.authorize_act(
            prepared["act_id"], prepared["digest"], code, vouched=vouched
        )

    async def _authorize(
        self, code: str | None, act: OwnerAct, *, digest: str, **detail: Any
    ) -> Credential:
        try:
            return await self._authority.check(code, act, digest=digest, detail=detail)
        except OwnerRefused as refused:
            raise DeskError.from_refusal(refused) from None

    async def _vouch(self, act: OwnerAct, credential: Credential, **detail: Any) -> Credential:
        try:
            return await blocking(self._authority.vouched, act, credential, detail=detail)
        except OwnerRefused as refused:
            raise DeskError.from_refusal(refused) from None

    async def authorize(
        self, code: str | None, act: OwnerAct, *, digest: str | None = None, **detail: Any
    ) -> Credential:
        """Check the owner code for ``act`` as a page shows it (the console's sign-in and
        passkey registration): ``digest`` is what the page showed (else the act and its
        ``detail``), the one digest the code is spent on."""
        bound = digest if digest is not None else act_digest(act, detail)
        return await self._authorize(code, act, digest=bound, **detail)

    async def vouch(self, act: OwnerAct, credential: Credential, **detail: Any) -> Credential:
        """Journal ``act`` as authorised by a credential the caller verified (a passkey)."""
        return await self._vouch(act, credential, **detail)


async def _collect_later(act: DelayedAct) -> str | None:
    # The token itself is never stored: it is minted when the owner asks again (``mint``).
    return "the token can now be minted: run the same command again"


def _name_taken(profile: str) -> DeskError:
    return DeskError(
        409,
        "caller_name_taken",
        f"That caller name belongs to the profile {profile!r}: mint it for that profile, or "
        "choose another name.",
    )


_REQUESTED = {OwnerAct.ARM_LIVE: OwnerAct.POLICY_APPLY}
"""The act a prepared act was requested as, where it is journalled as another."""


def _param(params: Mapping[str, Any], name: str) -> str:
    value = params.get(name)
    if not isinstance(value, str) or not value:
        raise DeskError(400, "invalid_request", f"{name} must be a non-empty string.")
    return value


_WITHHELD = ("token",)
"""Parts of an answer never kept on the ledger (a minted caller token: a secret)."""


def _kept(outcome: Mapping[str, Any]) -> dict[str, Any]:
    """What is kept of an act's answer for a retry: all of it but its secrets."""
    withheld = [key for key in _WITHHELD if key in outcome]
    kept = {key: value for key, value in outcome.items() if key not in withheld}
    return {**kept, "withheld": withheld} if withheld else kept


def _replayed(outcome: Mapping[str, Any]) -> dict[str, Any]:
    """A finished act's first answer, given again (a refusal raised again); an answer that
    held a secret is not kept, so its retry is refused."""
    error = outcome.get("error")
    if isinstance(error, dict):
        raise DeskError(int(outcome.get("status", 409)), str(error["code"]), str(error["message"]))
    if outcome.get("withheld"):
        raise DeskError(
            409, "prepared_act_used", "That act was done and its answer held a secret: do it again."
        )
    return dict(outcome)


def _pause_json(state: Any, *, changed: bool) -> dict[str, Any]:
    return {
        "paused": state.paused,
        "changed": changed,
        "reason": state.reason,
        "since": state.since.isoformat() if state.since else None,
    }


def _busy(busy: AccountBusyError) -> DeskError:
    return DeskError(
        409,
        busy.code,
        f"Another order on this account held its turn for over {busy.bound_s:g} s; nothing "
        "was done. Try again.",
    )
