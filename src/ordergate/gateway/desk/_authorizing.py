"""Who authorizes an owner act, and with what: the owner's code or passkey, or on a hosted
rail the person's own.

An act on a person's connection (approving an order it filed, resuming or disconnecting it) is
that person's alone: their code (``custody._person``) or the passkey the console verified for
that connection. The operator's code or passkey is refused there, and so is a desk without the
person's codes, each refusal journalled. Every other act that needs a code takes the owner's
(``OwnerAuthority``), spent on the digest of what the owner was shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ordergate.gateway.custody._person import (
    NO_PERSON_CODES,
    OPERATOR_CREDENTIAL,
    PersonCodes,
    PersonRefused,
    journal_person_refusal,
    sealed_connection_of,
)
from ordergate.gateway.desk._connection_acts import connection_kind, connection_of
from ordergate.gateway.desk._errors import DeskError
from ordergate.gateway.oauth import GatewayStore
from ordergate.gateway.oauth._records import ConnectionKind
from ordergate.ledger import Ledger, LedgerError
from ordergate.owner import Credential, OwnerAct, OwnerAuthority, OwnerRefused
from ordergate.store import blocking

__all__ = ["Authorizer"]


class Authorizer:
    """Checks the credential for an act: the owner's (``authority``) or, for an act on a
    sealed connection in ``store``, its person's (``persons``; ``None``: no person's code is
    known here, so every person's act is refused)."""

    def __init__(
        self,
        *,
        authority: OwnerAuthority,
        ledger: Ledger,
        store: GatewayStore,
        persons: PersonCodes | None,
    ) -> None:
        self._authority = authority
        self._ledger = ledger
        self._store = store
        self._persons = persons

    # -- the owner ----------------------------------------------------------------------------

    async def owner(
        self, code: str | None, act: OwnerAct, *, digest: str, **detail: Any
    ) -> Credential:
        """Spend the owner ``code`` on ``digest`` for ``act``; ``DeskError`` otherwise."""
        try:
            return await self._authority.check(code, act, digest=digest, detail=detail)
        except OwnerRefused as refused:
            raise DeskError.from_refusal(refused) from None

    async def vouch(self, act: OwnerAct, credential: Credential, **detail: Any) -> Credential:
        """Journal ``act`` as authorised by a credential the caller verified (a passkey)."""
        try:
            return await blocking(self._authority.vouched, act, credential, detail=detail)
        except OwnerRefused as refused:
            raise DeskError.from_refusal(refused) from None

    # -- a person's own acts on a hosted rail (``custody._person``) ---------------------------

    async def person_for(self, act: str, params: Mapping[str, Any]) -> str | None:
        """The sealed connection (a person's) whose owner alone authorizes ``act`` with
        ``params``: the one that filed the order an approval holds, or the one a resume
        names; ``None`` for the owner's own."""
        if act == OwnerAct.APPROVE:
            return await self._filer(params)
        on_connection = act in (OwnerAct.RESUME, OwnerAct.DISCONNECT)
        connection_id = connection_of(params) if on_connection else None
        if connection_id is None:
            return None
        kind = await blocking(connection_kind, self._store.engine, connection_id)
        return connection_id if kind is ConnectionKind.SEALED else None

    async def _filer(self, params: Mapping[str, Any]) -> str | None:
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

    async def person(
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
        await self.person(connection_id, code, None, OwnerAct.CONSOLE_SIGN_IN, {})
