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
``_delayed``) before it is done: its applier (one per act: ``HeldOrders``, ``PolicyActs``,
``CallerMints``, each in a module of its own; ``resume`` here) defers it. A policy
that only tightens, a pause, a denial and the owner's cancel end what waits. What has come due
is done before any owner read or act.

Every answer is a JSON-ready ``dict``; a refusal is a ``DeskError`` (status, code, sentence).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ordergate.callers import CallerKey
from ordergate.core import (
    Clock,
    RealtimeClock,
)
from ordergate.gateway._caller_mints import revoke_mints
from ordergate.gateway._owner import connection_digest, digest_in, identity_of
from ordergate.gateway.custody._person import (
    NO_PERSON_CODES,
    OPERATOR_CREDENTIAL,
    PersonCodes,
    PersonRefused,
    journal_person_refusal,
    sealed_connection_of,
)
from ordergate.gateway.desk._connection_acts import (
    connection_kind,
    connection_of,
    connection_resume_plan,
    disconnect_plan,
    disconnected,
    pause_connection,
    resume_connection,
)
from ordergate.gateway.desk._connections import (
    CALLER_PREFIX,
    client_names,
    list_caller_mints,
    list_connections,
    sealed_digests,
)
from ordergate.gateway.desk._delayed import UNVERIFIED, DelayedActs
from ordergate.gateway.desk._errors import DeskError
from ordergate.gateway.desk._held import GuardFor, HeldOrders
from ordergate.gateway.desk._mints import CallerMints, collect_later
from ordergate.gateway.desk._plans import (
    TRADING_PERMISSIONS,
    Plan,
    approve_plan,
    policy_plan,
    resume_plan,
    text_param,
)
from ordergate.gateway.desk._policy_acts import PolicyActs, PolicyHook, policy_baseline
from ordergate.gateway.oauth import GatewayStore
from ordergate.gateway.oauth._records import ConnectionKind
from ordergate.ledger import (
    FilingRecord,
    Ledger,
    LedgerError,
)
from ordergate.owner import (
    OWNER_IDENTITY,
    Credential,
    Delays,
    OwnerAct,
    OwnerAuthority,
    OwnerRefused,
    PreparedActs,
    PreparedRefused,
    act_digest,
)
from ordergate.profiles import Profiles
from ordergate.store import blocking

__all__ = ["OwnerDesk", "profile_trades"]


def profile_trades(profiles: Profiles, name: str | None) -> bool:
    """Whether the profile called ``name`` can place or cancel orders (an unknown one counts
    as trading: nothing is granted by not finding it)."""
    profile = profiles.get(name) if name is not None else None
    return profile is None or bool(profile.permissions & TRADING_PERMISSIONS)


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
        persons: PersonCodes | None = None,
    ) -> None:
        self._authority = authority
        self._persons = persons
        self._ledger = ledger
        self._store = store
        self._guard_for = guard_for
        self._mode = mode
        self._clock = clock or RealtimeClock()
        self._prepared = PreparedActs(ledger.engine, clock=self._clock)
        self._delayed = delayed or DelayedActs(Delays(ledger, clock=self._clock))
        self._held = HeldOrders(
            ledger=ledger, delayed=self._delayed, guard_for=guard_for, mode=mode
        )
        self._policies = PolicyActs(
            ledger=ledger, delayed=self._delayed, path=policy_path, on_applied=on_policy
        )
        self._mints = CallerMints(
            store=store, delayed=self._delayed, profiles=profiles, caller_key=caller_key
        )
        self._delayed.on_due(OwnerAct.POLICY_APPLY, self._policies.due)
        self._delayed.on_due(OwnerAct.ARM_LIVE, self._policies.due)
        self._delayed.on_due(OwnerAct.APPROVE, self._held.due)
        self._delayed.on_due(OwnerAct.TOKEN_MINT, collect_later)

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
        return await blocking(self._policies.view)

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

    async def connection(self, connection_id: str) -> dict[str, Any] | None:
        """The live connection ``connection_id`` as ``connections`` lists it (a person's own
        console shows it), else ``None``."""
        rows = await blocking(list_connections, self._store.engine, only=connection_id)
        return rows[0] if rows and rows[0]["state"] == "live" else None

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
        self,
        act_id: str,
        digest: str,
        code: str | None,
        *,
        vouched: Credential | None = None,
        person: str | None = None,
    ) -> dict[str, Any]:
        """Run the prepared act ``act_id`` exactly as prepared, once, if ``digest`` is its
        digest, nothing it was prepared on changed, and (where it needs one) ``code`` is a
        current owner code, spent on that digest only (``vouched``: the console verified
        the owner's passkey itself; with ``person``, the passkey of that connection's person,
        which authorizes that connection's acts only). The same code again for the same act is
        given the first answer. Raises ``DeskError`` otherwise."""
        await self._delayed.run_due()
        try:
            prepared = await blocking(self._prepared.get, act_id, digest)
        except PreparedRefused as refused:
            raise DeskError(refused.status, refused.reason, str(refused)) from None
        if prepared.state == "done":
            if connection_of(prepared.params) is not None or await self._person_for(
                prepared.act, prepared.params
            ):
                raise DeskError(409, "prepared_act_used", "That prepared act was already run.")
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
        owner = await self._person_for(plan.act, plan.params)
        if person is not None and owner != person:
            raise DeskError(404, "not_your_connection", "Nothing of your connection has that id.")
        if owner is not None:
            detail = {**plan.detail, "act_id": act_id}
            credential = await self._person_authorize(
                owner, code, vouched, plan.act, detail, vouched_person=person
            )
        elif plan.needs_code:
            detail = {**plan.detail, "act_id": act_id}
            if vouched is not None and plan.act is OwnerAct.APPROVE:
                await self._held.passkey_may_approve(plan)
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

    # -- a person's own acts on a hosted rail (``custody._person``) ---------------------------

    async def _person_for(self, act: str, params: Mapping[str, Any]) -> str | None:
        """The sealed connection (a person's) whose owner alone authorizes ``act`` with
        ``params``: the one that filed the order an approval holds, or the one a resume
        names; ``None`` for the owner's own."""
        if act == OwnerAct.APPROVE:
            return await self._person_of(params)
        on_connection = act in (OwnerAct.RESUME, OwnerAct.DISCONNECT)
        connection_id = connection_of(params) if on_connection else None
        if connection_id is None:
            return None
        kind = await blocking(connection_kind, self._store.engine, connection_id)
        return connection_id if kind is ConnectionKind.SEALED else None

    async def _person_of(self, params: Mapping[str, Any]) -> str | None:
        """The sealed connection (a person's, on a hosted rail) that filed the order an
        approval holds; ``None`` for the owner's own filings."""
        approval_id = str(params.get("approval_id", ""))

        def read() -> str | None:
            try:
                approval = self._ledger.approvals.get(approval_id)
                identity = self._ledger.filing(approval.filing_id).identity
            except (LedgerError, ValueError):
                return None
            return sealed_connection_of(self._store.engine, identity)

        return await blocking(read)

    async def _person_authorize(
        self,
        connection_id: str,
        code: str | None,
        vouched: Credential | None,
        act: OwnerAct,
        detail: Mapping[str, Any],
        *,
        vouched_person: str | None = None,
    ) -> Credential:
        """Only the person's own code or passkey authorizes an act in their connection
        (``vouched_person``: the console verified that connection's passkey, journalled
        there): the operator's code, passkey or a desk without the person's codes is refused
        (journalled)."""
        if vouched is Credential.PASSKEY and vouched_person == connection_id:
            return Credential.PASSKEY
        persons = self._persons
        try:
            if persons is None:
                await blocking(
                    journal_person_refusal, self._ledger, connection_id, act, NO_PERSON_CODES,
                    detail,
                )  # fmt: skip
                raise PersonRefused(NO_PERSON_CODES)
            if vouched is not None:
                await blocking(persons.refuse, connection_id, act, OPERATOR_CREDENTIAL, detail)
                raise PersonRefused(OPERATOR_CREDENTIAL)
            await blocking(
                lambda: persons.authorize(connection_id, code, act=act.value, detail=detail)
            )
        except PersonRefused as refused:
            raise DeskError(refused.status, refused.reason, str(refused)) from None
        return Credential.TOTP

    async def _plan(self, act: str, params: Mapping[str, Any]) -> Plan:
        if act == OwnerAct.APPROVE:
            approval_id = text_param(params, "approval_id")
            approval, record = await self._held.pending(approval_id)
            if await self._held.waits(approval_id):
                raise DeskError(
                    409,
                    "approval_waiting",
                    "That approval already waits the owner's delay; nothing changed.",
                )
            return approve_plan(approval, record)
        if act == OwnerAct.RESUME:
            connection_id = connection_of(params)
            if connection_id is not None:
                await blocking(connection_kind, self._store.engine, connection_id)
                digest = connection_digest(connection_id)
                pause = await blocking(self._ledger.controls.connection_pause, digest)
                return connection_resume_plan(connection_id, pause)
            return resume_plan(await blocking(self._ledger.controls.pause_state))
        if act == OwnerAct.DISCONNECT:
            connection_id = text_param(params, "connection_id")
            kind = await blocking(connection_kind, self._store.engine, connection_id)
            if kind is not ConnectionKind.SEALED:
                raise DeskError(
                    409,
                    "not_a_persons_connection",
                    "Only a person's own connection is disconnected with their code; revoke "
                    "this one instead.",
                )
            return disconnect_plan(connection_id)
        if act == OwnerAct.POLICY_APPLY:
            baseline, applied_sha = await blocking(policy_baseline, self._ledger)
            return policy_plan(text_param(params, "text"), baseline, applied_sha)
        if act == OwnerAct.TOKEN_MINT:
            return await blocking(self._mints.plan, params)
        raise DeskError(400, "unknown_act", "No such owner act to prepare.")

    async def _apply(self, plan: Plan, credential: Credential | None) -> dict[str, Any]:
        # One function per act: what runs once the act is authorised (a delay, for an act
        # that loosens, goes between the two).
        appliers = {
            OwnerAct.APPROVE: self._held.apply_approve,
            OwnerAct.RESUME: self._apply_resume,
            OwnerAct.POLICY_APPLY: self._policies.apply,
            OwnerAct.ARM_LIVE: self._policies.apply,
            OwnerAct.TOKEN_MINT: self._mints.apply,
            OwnerAct.DISCONNECT: self._apply_disconnect,
        }
        return await appliers[plan.act](plan, credential)

    # -- acts on held orders (``_held``) ----------------------------------------------------

    async def approve(
        self, approval_id: str, code: str | None, *, vouched: Credential | None = None
    ) -> dict[str, Any]:
        """Prepare and authorise in one go (the console, which showed the approval itself);
        ``vouched``: the console verified the owner's passkey itself (no code then)."""
        return await self._prepared_now(
            OwnerAct.APPROVE, {"approval_id": approval_id}, code, vouched=vouched
        )

    async def deny(self, approval_id: str) -> dict[str, Any]:
        return await self._held.deny(approval_id)

    # -- a person's own console (``console._person_routes``) ---------------------------------

    async def operators_approvals(self) -> list[dict[str, Any]]:
        """The waiting orders the operator's console shows: none of a person's connection
        (on a hosted rail those are that person's alone to see and decide)."""
        persons = await self.person_digests()
        return [a for a in await self.approvals() if not _of(a, persons)]

    async def person_digests(self) -> frozenset[str]:
        """The digests (as identities on the record keep them) of the people's connections."""
        return await blocking(sealed_digests, self._store.engine)

    async def person_approvals(self, connection_id: str) -> list[dict[str, Any]]:
        """The waiting orders of ``connection_id`` (its own filings and its bound callers')."""
        mine = connection_digest(connection_id)
        waiting = await self.approvals()
        return [a for a in waiting if digest_in(str(a.get("identity", ""))) == mine]

    async def person_sign_in(self, connection_id: str, code: str | None) -> None:
        """Spend the person's code of ``connection_id`` on signing in to its console;
        ``DeskError`` otherwise (a connection that is not a live person's is refused as a
        wrong code, and nothing is journalled of it)."""
        try:
            kind = await blocking(connection_kind, self._store.engine, connection_id)
        except DeskError:
            kind = None
        if kind is not ConnectionKind.SEALED:
            raise DeskError(
                403, "person_code_wrong", "That is not a current code of a connection here."
            )
        await self._person_authorize(connection_id, code, None, OwnerAct.CONSOLE_SIGN_IN, {})

    async def person_act(
        self,
        connection_id: str,
        act: OwnerAct,
        params: Mapping[str, Any],
        code: str | None,
        *,
        passkey: bool = False,
    ) -> dict[str, Any]:
        """``act`` on ``connection_id`` by its person: with their code, or (``passkey``) with
        the passkey the console verified for that connection. 404 when ``params`` name
        anything not of that connection."""
        if await self._person_for(act, params) != connection_id:
            raise DeskError(404, "not_your_connection", "Nothing of your connection has that id.")
        prepared = await self.prepare(act, params)
        return await self.authorize_act(
            prepared["act_id"],
            prepared["digest"],
            code,
            vouched=Credential.PASSKEY if passkey else None,
            person=connection_id if passkey else None,
        )

    # -- the kill switch -------------------------------------------------------------------

    async def pause(
        self, reason: str, *, cancel_open: bool = False, connection_id: str | None = None
    ) -> dict[str, Any]:
        """Pause; with ``cancel_open`` also cancel every working order the gateway filed, on
        every account, once the pause is on the ledger (so none is placed after it): each
        account's by its guard (``guard_for``), in the account's turn (``Guard.cancel_open``).
        With ``connection_id``: pause that live connection alone (``_connection_acts``; 404
        for none), no one's consent needed."""
        if connection_id is not None:
            if cancel_open:
                raise DeskError(
                    400, "invalid_request", "cancel_open pauses the whole rail: omit connection_id."
                )
            return await blocking(
                pause_connection,
                self._store.engine,
                self._ledger,
                connection_id,
                reason,
                by=UNVERIFIED,
            )

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

    async def resume(self, code: str | None, *, connection_id: str | None = None) -> dict[str, Any]:
        """Resume the rail, or with ``connection_id`` that connection alone (on a sealed one:
        the person's own code only)."""
        params = {} if connection_id is None else {"connection_id": connection_id}
        return await self._prepared_now(OwnerAct.RESUME, params, code)

    async def _apply_resume(self, plan: Plan, credential: Credential | None) -> dict[str, Any]:
        connection_id = connection_of(plan.params)
        if connection_id is not None:
            person = await self._person_for(plan.act, plan.params)
            by = OWNER_IDENTITY if person is None else identity_of(person)
            return await blocking(resume_connection, self._ledger, connection_id, by=by)
        current = await blocking(self._ledger.controls.pause_state)
        if not current.paused:
            return {"paused": False, "changed": False}
        await blocking(self._ledger.controls.resume, by=OWNER_IDENTITY)
        return {"paused": False, "changed": True, "was": _pause_json(current, changed=False)}

    # -- the policy (``_policy_acts``) ------------------------------------------------------

    async def apply_policy(self, text: str, code: str | None) -> dict[str, Any]:
        return await self._prepared_now(OwnerAct.POLICY_APPLY, {"text": text}, code)

    async def follow_applied(self) -> str | None:
        """Swap in a policy another process (a replica, the command line on the ledger) has
        applied since this desk last looked; a note when it did, else ``None``."""
        return await self._policies.follow_applied()

    # -- connections and caller tokens (``_mints``) ----------------------------------------

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

    async def _apply_disconnect(self, plan: Plan, credential: Credential | None) -> dict[str, Any]:
        connection_id = text_param(plan.params, "connection_id")
        erased = await blocking(self._store.erase, connection_id)
        if erased:
            await blocking(
                self._ledger.journal.append,
                identity=identity_of(connection_id),
                kind="connection_revoked",
                why="a person disconnected their own connection with their code",
                detail={"connection": connection_digest(connection_id)},
            )
        return disconnected(connection_id, erased)

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


def _of(row: Mapping[str, Any], digests: frozenset[str]) -> bool:
    """Whether ``row`` (an approval or a filing) was filed on one of the connections
    ``digests`` names (its own identity, or a caller's bound to it)."""
    return digest_in(str(row.get("identity", ""))) in digests


_REQUESTED = {OwnerAct.ARM_LIVE: OwnerAct.POLICY_APPLY}
"""The act a prepared act was requested as, where it is journalled as another."""


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
