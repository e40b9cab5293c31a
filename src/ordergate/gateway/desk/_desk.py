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
``CallerMints``, ``KillSwitch``, each in a module of its own) defers it. A policy
that only tightens, a pause, a denial and the owner's cancel end what waits. What has come due
is done before any owner read or act.

Every answer is a JSON-ready ``dict``; a refusal is a ``DeskError`` (status, code, sentence).

The desk itself is the order of an act: plan it (``_planner``), check who authorizes it
(``_authorizing``), claim it once, apply it, keep its answer (``_answers``); its reads are
``_reads``, its revocations ``_revocations``, its pause and resume ``_kill_switch``, a
connection's own limits ``_limit_acts``, its approval mode turned on ``_approval_acts``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ordergate.callers import CallerKey
from ordergate.core import Clock, RealtimeClock
from ordergate.gateway._owner import connection_digest, digest_in, identity_of
from ordergate.gateway.custody import ConnectionLimits
from ordergate.gateway.custody._person import PersonCodes, journal_person_act
from ordergate.gateway.desk._answers import kept, replayed
from ordergate.gateway.desk._approval_acts import ApprovalModeActs
from ordergate.gateway.desk._authorizing import Authorizer
from ordergate.gateway.desk._connection_acts import connection_of
from ordergate.gateway.desk._connections import client_names, list_connections, sealed_digests
from ordergate.gateway.desk._delayed import UNVERIFIED, DelayedActs
from ordergate.gateway.desk._errors import DeskError
from ordergate.gateway.desk._held import GuardFor, HeldOrders
from ordergate.gateway.desk._kill_switch import KillSwitch
from ordergate.gateway.desk._limit_acts import LimitActs
from ordergate.gateway.desk._mints import CallerMints, collect_later
from ordergate.gateway.desk._planner import REQUESTED_AS, ActPlanner
from ordergate.gateway.desk._plans import TRADING_PERMISSIONS, Plan
from ordergate.gateway.desk._policy_acts import PolicyActs, PolicyHook
from ordergate.gateway.desk._reads import every_connection, rail_status, waiting_approvals
from ordergate.gateway.desk._revocations import Revocations
from ordergate.gateway.oauth import GatewayStore
from ordergate.ledger import Ledger
from ordergate.owner import (
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

CONSOLE_SESSION = "person_console"
"""The credential a person's deny is journalled with: their signed-in console session."""


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
        self._ledger = ledger
        self._store = store
        self._mode = mode
        self._clock = clock or RealtimeClock()
        self._prepared = PreparedActs(ledger.engine, clock=self._clock)
        self._delayed = delayed or DelayedActs(Delays(ledger, clock=self._clock))
        self._auth = Authorizer(authority=authority, ledger=ledger, store=store, persons=persons)
        self._held = HeldOrders(
            ledger=ledger, delayed=self._delayed, guard_for=guard_for, mode=mode
        )
        self._policies = PolicyActs(
            ledger=ledger, delayed=self._delayed, path=policy_path, on_applied=on_policy
        )
        self._mints = CallerMints(
            store=store, delayed=self._delayed, profiles=profiles, caller_key=caller_key
        )
        self._switch = KillSwitch(
            ledger=ledger,
            store=store,
            delayed=self._delayed,
            guard_for=guard_for,
            authorizer=self._auth,
        )
        self._revocations = Revocations(ledger=ledger, store=store)
        self._modes = ApprovalModeActs(ledger=ledger, store=store)
        self._limits = LimitActs(ledger=ledger, store=store, persons=persons, clock=self._clock)
        self._planner = ActPlanner(ledger=ledger, store=store, held=self._held, mints=self._mints)
        self._delayed.on_due(OwnerAct.POLICY_APPLY, self._policies.due)
        self._delayed.on_due(OwnerAct.ARM_LIVE, self._policies.due)
        self._delayed.on_due(OwnerAct.APPROVE, self._held.due)
        self._delayed.on_due(OwnerAct.TOKEN_MINT, collect_later)

    @property
    def limits(self) -> ConnectionLimits:
        """Each connection's own limits under the rail's policy (a person's routes set them)."""
        return self._limits.limits

    @property
    def delayed(self) -> DelayedActs:
        """The acts that wait for the owner's delay (the console registers passkeys here)."""
        return self._delayed

    # -- reads (``_reads``) ----------------------------------------------------------------

    async def status(self) -> dict[str, Any]:
        await self._delayed.run_due()
        return await blocking(rail_status, self._authority, self._ledger, self._delayed, self._mode)

    async def approvals(self) -> list[dict[str, Any]]:
        """The waiting orders: each approval's announcement, the reasons its filing was held,
        and the registered name of the client whose connection filed it (when one did)."""
        await self._delayed.run_due()
        return await blocking(waiting_approvals, self._ledger)

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
        return await blocking(every_connection, self._store.engine)

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

    # -- prepared acts: what the owner is shown is what runs -------------------------------

    async def prepare(self, act: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """Prepare ``act`` (``approve``, ``resume``, ``policy_apply``, ``token_mint``) with
        ``params`` for the owner to authorise: its id, summary lines, digest, expiry and
        whether it needs the code. Raises ``DeskError`` for an act that cannot be done."""
        plan = await self._planner.plan(act, params)
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
            if connection_of(prepared.params) is not None or await self._auth.person_for(
                prepared.act, prepared.params
            ):
                raise DeskError(409, "prepared_act_used", "That prepared act was already run.")
            if prepared.needs_code and vouched is None:
                await self._auth.owner(code, prepared.act, digest=digest, act_id=act_id)
            return replayed(prepared.outcome or {})
        if prepared.state != "prepared":
            raise DeskError(409, "prepared_act_used", "That prepared act is already running.")
        requested = REQUESTED_AS.get(prepared.act, prepared.act)
        plan = await self._planner.plan(requested, prepared.params)
        if act_digest(plan.act, plan.params, plan.summary, plan.binds) != prepared.digest:
            raise DeskError(
                409,
                "prepared_act_changed",
                "What that act was prepared on changed since; prepare it again.",
            )
        credential: Credential | None = None
        owner = await self._auth.person_for(plan.act, plan.params)
        if person is not None and owner != person:
            raise DeskError(404, "not_your_connection", "Nothing of your connection has that id.")
        if owner is not None:
            detail = {**plan.detail, "act_id": act_id}
            credential = await self._auth.person(
                owner, code, vouched, plan.act, detail, vouched_person=person
            )
        elif plan.needs_code:
            detail = {**plan.detail, "act_id": act_id}
            if vouched is not None and plan.act is OwnerAct.APPROVE:
                await self._held.passkey_may_approve(plan)
            if vouched is not None:
                credential = await self._auth.vouch(plan.act, vouched, digest=digest, **detail)
            else:
                credential = await self._auth.owner(code, plan.act, digest=digest, **detail)
        if not await blocking(self._prepared.claim, act_id):
            raise DeskError(409, "prepared_act_used", "That prepared act was already run.")
        try:
            outcome = await self._apply(plan, credential)
        except DeskError as error:
            await blocking(
                self._prepared.finish, act_id, error.as_json() | {"status": error.status}
            )
            raise
        await blocking(self._prepared.finish, act_id, kept(outcome))
        return outcome

    async def _apply(self, plan: Plan, credential: Credential | None) -> dict[str, Any]:
        # One function per act: what runs once the act is authorised (a delay, for an act
        # that loosens, goes between the two).
        appliers = {
            OwnerAct.APPROVE: self._held.apply_approve,
            OwnerAct.RESUME: self._switch.apply_resume,
            OwnerAct.POLICY_APPLY: self._policies.apply,
            OwnerAct.ARM_LIVE: self._policies.apply,
            OwnerAct.TOKEN_MINT: self._mints.apply,
            OwnerAct.DISCONNECT: self._revocations.apply_disconnect,
        }
        return await appliers[plan.act](plan, credential)

    # -- acts on held orders (``_held``) ---------------------------------------------------

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

    # -- a person's own console (``console._person_routes``) -------------------------------

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

    async def person_deny(self, connection_id: str, approval_id: str) -> dict[str, Any]:
        """Deny a waiting order of ``connection_id`` by its person, signed in to their own
        console (no code: it only makes things safer), journalled ``person_act`` ``deny``
        under the connection's identity; 404 for an approval not of that connection."""
        if await self._auth.person_for(OwnerAct.APPROVE, {"approval_id": approval_id}) != (
            connection_id
        ):
            raise DeskError(404, "not_your_connection", "Nothing of your connection has that id.")
        outcome = await self._held.deny(approval_id, by=identity_of(connection_id))
        await blocking(
            lambda: journal_person_act(
                self._ledger, None, connection_id, "deny", "authorised", None,
                {"approval_id": approval_id, "status": outcome.get("status")},
                credential=CONSOLE_SESSION, at=self._clock.now().isoformat(),
            )
        )  # fmt: skip
        return outcome

    async def person_sign_in(self, connection_id: str, code: str | None) -> None:
        """Spend the person's code of ``connection_id`` on signing in to its console;
        ``DeskError`` otherwise (``Authorizer.person_sign_in``)."""
        await self._auth.person_sign_in(connection_id, code)

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
        if await self._auth.person_for(act, params) != connection_id:
            raise DeskError(404, "not_your_connection", "Nothing of your connection has that id.")
        prepared = await self.prepare(act, params)
        return await self.authorize_act(
            prepared["act_id"],
            prepared["digest"],
            code,
            vouched=Credential.PASSKEY if passkey else None,
            person=connection_id if passkey else None,
        )

    # -- a person's own limits under the rail's ceiling (``_limit_acts``) -----------------

    async def connection_limits(self, connection_id: str) -> list[dict[str, Any]]:
        """Each cap of ``connection_id``: the rail's ceiling, its own value, the one in force."""
        return await self._limits.view(connection_id)

    async def person_limits(
        self, connection_id: str, limits: object, code: str | None, *, passkey: bool = False
    ) -> dict[str, Any]:
        """The person of ``connection_id`` sets its own limits up to the rail's ceiling with
        their code (``passkey``: the console verified their passkey for exactly this change);
        ``DeskError`` naming the field of a value beyond the ceiling, or for any other code."""
        return await self._limits.by_person(connection_id, limits, code, passkey=passkey)

    async def check_person_limits(self, connection_id: str, limits: object) -> None:
        """``DeskError`` naming the field when ``limits`` are no valid caps within the rail's
        ceiling (a person's console asks before its passkey ceremony for them)."""
        await self._limits.check_person(connection_id, limits)

    async def tighten_limits(self, connection_id: str, limits: object) -> dict[str, Any]:
        """Tighten the limits of the live person's connection ``connection_id`` (no one's
        consent: it only tightens); a value that would loosen is refused 403 ``limit_loosens``
        naming its field, a connection that is not a live person's 404."""
        return await self._limits.tighten(connection_id, limits)

    async def approval_mode(self, connection_id: str, on: bool) -> dict[str, Any]:
        """Turn the approval mode of the live person's connection ``connection_id`` on (no
        one's consent: every order of it is then held for its person); off is refused 403,
        journalled: only the person turns it off, with their code."""
        return await self._modes.set(connection_id, on)

    # -- the kill switch (``_kill_switch``) ------------------------------------------------

    async def pause(
        self, reason: str, *, cancel_open: bool = False, connection_id: str | None = None
    ) -> dict[str, Any]:
        """Pause; with ``cancel_open`` also cancel every working order the gateway filed, on
        every account, once the pause is on the ledger (so none is placed after it): each
        account's by its guard (``guard_for``), in the account's turn (``Guard.cancel_open``).
        With ``connection_id``: pause that live connection alone (``_connection_acts``; 404
        for none), no one's consent needed."""
        return await self._switch.pause(
            reason, cancel_open=cancel_open, connection_id=connection_id
        )

    async def resume(self, code: str | None, *, connection_id: str | None = None) -> dict[str, Any]:
        """Resume the rail, or with ``connection_id`` that connection alone (on a sealed one:
        the person's own code only)."""
        params = {} if connection_id is None else {"connection_id": connection_id}
        return await self._prepared_now(OwnerAct.RESUME, params, code)

    # -- the policy (``_policy_acts``) -----------------------------------------------------

    async def apply_policy(self, text: str, code: str | None) -> dict[str, Any]:
        return await self._prepared_now(OwnerAct.POLICY_APPLY, {"text": text}, code)

    async def follow_applied(self) -> str | None:
        """Swap in a policy another process (a replica, the command line on the ledger) has
        applied since this desk last looked; a note when it did, else ``None``."""
        return await self._policies.follow_applied()

    # -- connections and caller tokens (``_revocations``, ``_mints``) ----------------------

    async def revoke(self, connection_id: str) -> dict[str, Any]:
        """Erase a connection with its tokens; or, for ``caller:NAME`` (every token minted for
        the name) or ``caller:NAME#MINT`` (that one), put the caller's tokens on the ledger's
        denylist, which every replica reads on each request. ``revoked``: whether anything
        was left to revoke."""
        return await self._revocations.revoke(connection_id)

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

    # -- the owner code --------------------------------------------------------------------

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

    async def authorize(
        self, code: str | None, act: OwnerAct, *, digest: str | None = None, **detail: Any
    ) -> Credential:
        """Check the owner code for ``act`` as a page shows it (the console's sign-in and
        passkey registration): ``digest`` is what the page showed (else the act and its
        ``detail``), the one digest the code is spent on."""
        bound = digest if digest is not None else act_digest(act, detail)
        return await self._auth.owner(code, act, digest=bound, **detail)

    async def vouch(self, act: OwnerAct, credential: Credential, **detail: Any) -> Credential:
        """Journal ``act`` as authorised by a credential the caller verified (a passkey)."""
        return await self._auth.vouch(act, credential, **detail)


def _of(row: Mapping[str, Any], digests: frozenset[str]) -> bool:
    """Whether ``row`` (an approval or a filing) was filed on one of the connections
    ``digests`` names (its own identity, or a caller's bound to it)."""
    return digest_in(str(row.get("identity", ""))) in digests
