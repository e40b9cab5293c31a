"""An order held for the owner's approval, answered through MCP itself (2026-07-28): the
multi-round-trip request (``InputRequiredResult``) with a URL-mode elicitation.

To a client of the stateless era that declared ``elicitation.url``, an order the guard holds
for the owner answers ``resultType: "input_required"``: one input request, an
``elicitation/create`` in URL mode whose URL is that approval's page on the owner's console
(which only the owner, signed in with the owner code or a passkey, can act on: the agent
receives no way to approve), and a ``requestState``. The client retries the same call with
that state; the retry answers:

- while the approval waits, the same input-required answer, the same state;
- once the owner approved (the guard placed it as filed) or denied, the filing's outcome, as
  any order answers (``order_result``);
- after the approval's expiry, still undecided: expired.

The state (``RequestState``) binds the principal's connection (``Principal.session_owner``:
its connection, and a caller token's identity), the tool, the SHA-256 of the call's
arguments, the SHA-256 of the filed terms, a digest of the policy the guard holds the order
under, the filing and its approval, and the expiry; it is sealed with HMAC-SHA256 under the
gateway's key (``state_key``: derived from ``ORDERGATE_MASTER_SECRET``, so every replica
opens it; without one a key of this process). A state altered by one byte, one this gateway
did not seal, or one shown by another connection, for another tool or other arguments is
refused (``INVALID_PARAMS``, nothing read or sent); so is one whose terms or policy no longer
hold (read ``gate_record``).

A handshake-era client (2025-11-25) that declared ``elicitation.url`` in ``initialize`` gets
the order's ``pending_approval`` answer with ``elicitation/create`` in URL mode asked first,
on the answer's SSE stream (``Asking``; its ``elicitationId`` the approval's id): the same
console page. Any other client gets the ``pending_approval`` answer alone.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any, Final
from uuid import UUID

from ordergate.core import Secret
from ordergate.execution import APPROVAL_EXPIRED, Guard, Outcome, terms_sha256
from ordergate.gateway.mcp._answers import order_result
from ordergate.gateway.mcp._refusing import Failure, step
from ordergate.ledger import FilingStatus
from ordergate.mcpserve import INVALID_PARAMS, Asking, RpcError
from ordergate.policy import PolicyConfig
from ordergate.store import blocking

__all__ = ["HeldAnswers", "RequestState", "state_key"]

_VERSION: Final = "r1"
_CONTEXT: Final = b"ordergate/request-state/v1"
INPUT_KEY: Final = "owner_approval"
REFUSED: Final = (
    "requestState refused: it is not one this gateway issued for this call on this connection."
)
STALE: Final = (
    "requestState refused: the order's terms or the policy it was held under have changed. "
    "Read gate_record for where the filing stands."
)
RECORD_UNREADABLE = Failure(
    "reading a held filing", message="The gateway could not read its record; retry later."
)


def state_key(master: Secret | None) -> bytes:
    """The key request states are sealed with: derived from the master secret (every replica
    the same), or without one, this process's own."""
    if master is None:
        return secrets.token_bytes(32)
    return hmac.new(master.reveal().encode("utf-8"), _CONTEXT, hashlib.sha256).digest()


def digest(value: Any) -> str:
    """SHA-256 of ``value``'s canonical JSON."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def policy_digest(policy: PolicyConfig) -> str:
    """A digest of the policy the guard checks with (the profile's narrowing included)."""
    return hashlib.sha256(repr(policy).encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class RequestState:
    """What a held order's ``requestState`` binds (see the module docstring)."""

    owner: str
    tool: str
    arguments: str
    terms: str
    policy: str
    filing: str
    approval: str
    expires: int
    """Unix seconds."""


_OWNER_MESSAGE = (
    "This order is held for the account owner's approval. The owner approves or denies it on "
    "the gateway's console; nothing is sent until then."
)
_PERSON_MESSAGE = (
    "This order is held for your approval: you decide it on your connection's console, with "
    "your passkey or code; nothing is sent until then."
)


class HeldAnswers:
    """What an agent is answered about an order held for approval: seals and opens request
    states (``key``), and points at the console's approval pages under ``console`` (its URL):
    the owner's, or on a hosted rail (``person``) the page of the person whose connection filed
    the order (``/console/mine``), since there the person approves and the operator cannot.
    Deciding the order is the owner's desk's (``gateway.desk``'s ``HeldOrders``)."""

    def __init__(self, *, key: bytes, console: str, person: bool = False) -> None:
        if len(key) < 32:
            raise ValueError("a request-state key has at least 32 bytes")
        self._key = key
        console = console.rstrip("/")
        self._approvals = f"{console}/mine/approvals" if person else f"{console}/approvals"
        self._message = _PERSON_MESSAGE if person else _OWNER_MESSAGE

    def seal(self, state: RequestState) -> str:
        payload = _b64(json.dumps(asdict(state), separators=(",", ":")).encode("utf-8"))
        return f"{_VERSION}.{payload}.{self._mac(payload)}"

    def open(self, token: object) -> RequestState | None:
        """The state ``token`` carries, when this gateway sealed it unaltered; else ``None``."""
        if not isinstance(token, str) or len(token) > 4096:
            return None
        version, _, rest = token.partition(".")
        payload, _, mac = rest.partition(".")
        if version != _VERSION or not hmac.compare_digest(mac, self._mac(payload)):
            return None
        try:
            fields = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
            return RequestState(**fields)
        except (ValueError, TypeError, binascii.Error):
            return None

    def _mac(self, payload: str) -> str:
        return _b64(hmac.new(self._key, payload.encode("ascii"), hashlib.sha256).digest())

    async def held(
        self,
        guard: Guard,
        outcome: Outcome,
        *,
        owner: str,
        tool: str,
        arguments: dict[str, Any],
    ) -> dict[str, Any]:
        """The input-required answer to the order ``outcome`` holds for the owner."""
        assert outcome.approval_id is not None
        approval = await step(
            blocking(guard.ledger.approvals.get, outcome.approval_id), RECORD_UNREADABLE
        )
        state = RequestState(
            owner=owner,
            tool=tool,
            arguments=digest(arguments),
            terms=approval.terms_sha256,
            policy=policy_digest(guard.policy),
            filing=str(outcome.filing_id),
            approval=str(outcome.approval_id),
            expires=int(approval.expires_at.timestamp()),
        )
        return self._input_required(self.seal(state), outcome.approval_id)

    async def resumed(
        self, guard: Guard, token: object, *, owner: str, tool: str, arguments: dict[str, Any]
    ) -> dict[str, Any]:
        """The answer to a retry carrying ``token``: the same input-required answer while the
        owner has not decided, the filing's outcome once decided, expired past the expiry.
        ``RpcError`` (``INVALID_PARAMS``) for a state refused."""
        state = self.open(token)
        if (
            state is None
            or not hmac.compare_digest(state.owner, owner)
            or state.tool != tool
            or state.arguments != digest(arguments)
        ):
            raise RpcError(INVALID_PARAMS, REFUSED)
        assert isinstance(token, str)
        record = await step(blocking(guard.ledger.filing, state.filing), RECORD_UNREADABLE)
        if (
            record.account != guard.account
            or terms_sha256(record.terms) != state.terms
            or policy_digest(guard.policy) != state.policy
        ):
            raise RpcError(INVALID_PARAMS, STALE)
        if record.status is FilingStatus.PENDING_APPROVAL:
            # The clock the approval expires by: the ledger's security time, not the market's.
            if guard.ledger.approvals.now() >= datetime.fromtimestamp(state.expires, tz=UTC):
                expired = Outcome(
                    record.id,
                    FilingStatus.EXPIRED,
                    (APPROVAL_EXPIRED,),
                    approval_id=UUID(state.approval),
                )
                return order_result(expired, paper=guard.paper)
            return self._input_required(token, UUID(state.approval))
        outcome = await step(guard.standing(record.id), RECORD_UNREADABLE)
        return order_result(outcome, paper=guard.paper)

    def asking(self, answer: dict[str, Any], approval_id: UUID) -> Asking:
        """A handshake-era client's answer to a held order (``answer``: ``pending_approval``)
        with ``elicitation/create`` in URL mode asked first: the approval's console page."""
        elicit = self._elicitation(approval_id)
        elicit["params"]["elicitationId"] = str(approval_id)
        return Asking(answer, (elicit,))

    def _elicitation(self, approval_id: UUID) -> dict[str, Any]:
        return {
            "method": "elicitation/create",
            "params": {
                "mode": "url",
                "message": self._message,
                "url": f"{self._approvals}/{approval_id}",
            },
        }

    def _input_required(self, token: str, approval_id: UUID) -> dict[str, Any]:
        return {
            "resultType": "input_required",
            "inputRequests": {INPUT_KEY: self._elicitation(approval_id)},
            "requestState": token,
        }


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")
