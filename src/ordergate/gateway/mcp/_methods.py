"""``GatewayMethods``: the gateway's MCP methods (``initialize``, ``ping``, ``tools/list``,
``tools/call``) for the shared transport, over a ``GatewayBackend``.

Every request arrives with the principal the gateway's token verifier returned, and so with
its connection; everything a call reads or writes is that connection's:

- ``tools/list``: the upstream's list for the connection (kept ten minutes) with the equity
  order tool as the gateway serves it, plus ``gate_how``, ``gate_record``, ``gate_disconnect``;
- both only within the connection's profile (``_profiles``): a tool it does not permit is
  not listed, and a call to one is refused with the permission it lacks;
- ``tools/call``: routed by the words of the tool's name (``_routing``). The equity order
  tool becomes a ``Proposal`` of the filing's own fields (``_proposal``) and runs the guard
  under the connection's identity, at most ``max_open`` unfinished filings per identity at a
  time; its result carries the filing id, the status, the reasons and the guard's fixed
  sentence (an unanswered order says to read open orders before sending again). Reads and
  reviews are forwarded unchanged; a cancel of an order the gateway filed goes through the
  guard, and only from the connection that filed it; other cancels are forwarded and recorded;
  everything else is refused with a plain sentence and nothing is sent.

Results use the venue's envelope (``{data, guide}`` as structured content and as text;
``{error: {code, message}}`` with ``isError`` for refusals). Errors are fixed sentences: no
token and no upstream text reaches the agent or the log (only exception types are logged).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any
from uuid import UUID

import anyio
import anyio.to_thread

from ordergate import __version__
from ordergate.core import Clock
from ordergate.execution import Guard, Outcome
from ordergate.gateway.mcp._backend import GatewayBackend, Principal
from ordergate.gateway.mcp._catalog import Catalog
from ordergate.gateway.mcp._failures import failure_payload, plain_code
from ordergate.gateway.mcp._profiles import (
    GATE_NAMES,
    UNDEFINED,
    ProfileLookup,
    needs,
    profile_facts,
    profile_instructions,
    profile_refusal,
    refusal_sentence,
    visible_to,
)
from ordergate.gateway.mcp._proposal import NotFiled, proposal_from_arguments
from ordergate.gateway.mcp._record import how, open_count, record
from ordergate.gateway.mcp._routing import Route, route
from ordergate.ledger import Ledger, LedgerError
from ordergate.mcpserve import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    RpcError,
    ServerInfo,
    Session,
    SessionStore,
    dumps_decimal_numbers,
    error_result,
    open_session,
    tool_result,
)
from ordergate.policy import Proposal, ProposalError
from ordergate.profiles import Permission, PolicyOverrides, Profile

__all__ = ["GATEWAY_INFO", "MAX_OPEN_PROPOSALS", "GatewayMethods"]

logger = logging.getLogger(__name__)

MAX_OPEN_PROPOSALS = 5

GATEWAY_INFO = ServerInfo(
    name="ordergate-gateway",
    version=__version__,
    instructions=(
        "The ordergate gateway in front of a Robinhood Agentic Trading account. Reads pass "
        "through; every equity order is filed, checked against the owner's policy and placed "
        "only as filed. Call gate_how for what is allowed and your limits."
    ),
)

FORWARD_GUIDE = "Forwarded unchanged from the broker by the ordergate gateway."
ORDER_GUIDE = (
    "Filed on the owner's ledger under this connection, checked against the owner's policy "
    "and sent only as filed. gate_record lists your filings and their outcomes."
)
GATE_GUIDE = "Answered by the ordergate gateway itself."

_PLAIN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:\-]{0,127}")


def _plain(text: object) -> str | None:
    return text if isinstance(text, str) and _PLAIN_ID.fullmatch(text) else None


def _refusal(code: str, message: str) -> dict[str, Any]:
    return error_result(code, message, dumps=dumps_decimal_numbers)


def _answer(data: Any, guide: str) -> dict[str, Any]:
    return tool_result({"data": data, "guide": guide}, is_error=False, dumps=dumps_decimal_numbers)


def _connection(principal: Principal) -> str:
    connection_id = getattr(principal, "connection_id", None)
    if not isinstance(connection_id, str) or not connection_id:
        # A verifier that names no connection: serve nothing rather than guess one.
        raise RpcError(INTERNAL_ERROR, "The gateway could not tell which connection this is.")
    return connection_id


@dataclass(frozen=True, slots=True)
class Who:
    """Who a request acts for: the connection whose upstream session it uses, the identity
    its filings carry, and its profile (``None``: not defined here, so it fails closed)."""

    connection_id: str
    identity: str
    profile: Profile | None
    named_itself: bool = False
    """The principal named its own identity (a caller token), so the connection is not its
    own to end."""


def _error(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


def _sentence(text: str) -> str:
    return text[0].upper() + text[1:] + "."


def _order_result(outcome: Outcome, *, paper: bool) -> dict[str, Any]:
    data: dict[str, Any] = {
        "filing_id": str(outcome.filing_id),
        "status": outcome.status.value,
        "reasons": list(outcome.reasons),
        "message": outcome.message,
        "paper": paper,
    }
    order_id = _plain(outcome.order_id)
    if order_id is not None:
        data["order_id"] = order_id
    if outcome.approval_id is not None:
        data["approval_id"] = str(outcome.approval_id)
    broker_code = plain_code(outcome.broker_code)
    if broker_code is not None:
        data["broker_code"] = broker_code
    return tool_result(
        {"data": data, "guide": ORDER_GUIDE}, is_error=outcome.refused, dumps=dumps_decimal_numbers
    )


class GatewayMethods:
    """The gateway's ``ServerMethods``; ``max_open`` caps each identity's unfinished filings."""

    def __init__(
        self,
        backend: GatewayBackend,
        *,
        clock: Clock,
        profile_of: ProfileLookup,
        sessions: SessionStore | None = None,
        tools_ttl: timedelta = timedelta(minutes=10),
        max_open: int = MAX_OPEN_PROPOSALS,
        info: ServerInfo = GATEWAY_INFO,
    ) -> None:
        if max_open < 1:
            raise ValueError("max_open must be at least 1")
        self._backend = backend
        self._profile_of = profile_of
        self._clock = clock
        self._sessions = sessions or SessionStore()
        self._catalog = Catalog(backend.upstream_tools, clock=clock, ttl=tools_ttl)
        self._max_open = max_open
        self._info = info
        self._locks: dict[str, anyio.Lock] = {}

    @property
    def sessions(self) -> SessionStore:
        return self._sessions

    async def initialize(
        self, params: dict[str, Any], principal: Principal
    ) -> tuple[dict[str, Any], Session]:
        """The handshake; its ``instructions`` add the connection's profile and, when the
        profile has one, its system prompt."""
        info = self._info
        try:
            profile = (await self._who(principal)).profile
        except Exception as error:  # the handshake still succeeds; calls will fail closed
            logger.warning("a connection's profile could not be read: %s", type(error).__name__)
            profile = None
        if profile is not None:
            info = replace(info, instructions=profile_instructions(info.instructions, profile))
        return open_session(params, sessions=self._sessions, info=info, now=self._clock.now())

    async def call(
        self, method: str, params: dict[str, Any], principal: Principal
    ) -> dict[str, Any]:
        """Answer one request for the principal's connection; ``RpcError`` for protocol errors."""
        if method == "tools/call":
            who = await self._who(principal)
            try:
                return await self._call_tool(who, params)
            except RpcError:
                raise
            except Exception as error:  # fail closed, in a fixed sentence
                logger.warning("tools/call failed: %s", type(error).__name__)
                return _refusal(
                    "GATEWAY_ERROR",
                    "The gateway could not complete the call. If it was an order or a cancel, "
                    "read gate_record and your open orders before sending it again.",
                )
        if method == "tools/list":
            return await self._list_tools(await self._who(principal), params)
        if method == "ping":
            return {}
        raise RpcError(METHOD_NOT_FOUND, "Method not found")

    # -- tools/list ------------------------------------------------------------------------

    async def _list_tools(self, who: Who, params: dict[str, Any]) -> dict[str, Any]:
        if params.get("cursor") is not None:
            raise RpcError(INVALID_PARAMS, "invalid cursor")  # one page: no cursor is ours
        try:
            listing = await self._catalog.listing(who.connection_id)
            profile = who.profile
        except Exception as error:
            logger.warning("upstream tool list failed: %s", type(error).__name__)
            raise RpcError(
                INTERNAL_ERROR, "The gateway could not read the broker's tool list."
            ) from None
        return {"tools": visible_to(profile, listing)}

    # -- tools/call ------------------------------------------------------------------------

    async def _call_tool(self, who: Who, params: dict[str, Any]) -> dict[str, Any]:
        name = params.get("name")
        if not isinstance(name, str) or not name:
            raise RpcError(INVALID_PARAMS, "params.name must be a tool name")
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            return _refusal("INVALID_ARGUMENT", "The arguments must be a JSON object.")
        if name == "gate_how":
            return await self._gate_how(who)
        if name == "gate_record":
            return await self._gate_record(who)
        if name == "gate_disconnect":
            return await self._gate_disconnect(who)
        try:
            listing = await self._catalog.listing(who.connection_id)
        except Exception as error:
            logger.warning("upstream tool list failed: %s", type(error).__name__)
            return _refusal(
                "UPSTREAM_UNAVAILABLE",
                "The gateway could not read the broker's tool list, so nothing was sent.",
            )
        descriptor = listing.by_name.get(name)
        if descriptor is None:
            shown = _plain(name)
            raise RpcError(INVALID_PARAMS, f"Unknown tool: {shown}" if shown else "Unknown tool")
        routing = route(descriptor, order_tool=listing.order_tool)
        if routing.route is Route.REFUSE:
            return _refusal(routing.code, routing.message)
        refused = profile_refusal(who.profile, descriptor, listing)
        if refused is not None:
            return _refusal("PROFILE_REFUSED", _sentence(refused))
        if routing.route is Route.ORDER:
            return await self._order(who, descriptor, arguments)
        if routing.route is Route.FORWARD:
            return await self._forward(who, name, arguments)
        if routing.route is Route.CANCEL:
            return await self._cancel(who, name, arguments)
        return _refusal(routing.code, routing.message)

    async def _forward(self, who: Who, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        try:
            data = await self._backend.forward(who.connection_id, name, arguments)
        except Exception as error:
            logger.info("forward of %s failed: %s", name, type(error).__name__)
            return tool_result(failure_payload(error), is_error=True, dumps=dumps_decimal_numbers)
        return _answer(data, FORWARD_GUIDE)

    async def _cancel(self, who: Who, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        order_id = _plain(arguments.get("order_id"))
        if order_id is not None:
            try:
                guard = await self._backend.guard(who.connection_id)
                identity = who.identity
                filed = await anyio.to_thread.run_sync(_filed_order, guard.ledger, order_id)
            except Exception as error:  # the record cannot tell: treat it as not ours to route
                logger.warning("looking up a cancelled order failed: %s", type(error).__name__)
                filed = None
            if filed is not None:
                return await self._cancel_filed(guard, identity, *filed)
        outcome = "forwarded"
        try:
            data = await self._backend.forward(who.connection_id, name, arguments)
            result = _answer(data, FORWARD_GUIDE)
        except Exception as error:
            logger.info("cancel %s failed: %s", name, type(error).__name__)
            payload = failure_payload(error, cancel=True)
            outcome = str(payload["error"]["code"]).lower()
            result = tool_result(payload, is_error=True, dumps=dumps_decimal_numbers)
        await self._record_cancel(who, name, arguments, outcome)
        return result

    async def _cancel_filed(
        self, guard: Guard, identity: str, filing_id: UUID, owner: str
    ) -> dict[str, Any]:
        """An order the gateway filed is cancelled through the guard (paper or live, read back
        and reconciled) — and only by the connection that filed it."""
        if owner != identity:
            return _refusal(
                "NOT_YOUR_ORDER",
                "That order was placed by another connection; a connection cancels only its "
                "own orders. Nothing was sent.",
            )
        try:
            outcome = await guard.cancel(filing_id, identity=identity)
        except Exception as error:
            logger.info("cancel of filing %s failed: %s", filing_id, type(error).__name__)
            return tool_result(
                failure_payload(error, cancel=True), is_error=True, dumps=dumps_decimal_numbers
            )
        return _answer(
            {
                "filing_id": str(outcome.filing_id),
                "status": outcome.status.value,
                "message": outcome.message,
            },
            FORWARD_GUIDE,
        )

    async def _record_cancel(
        self, who: Who, name: str, arguments: Mapping[str, Any], outcome: str
    ) -> None:
        detail: dict[str, Any] = {"tool": name, "outcome": outcome}
        order_id = _plain(arguments.get("order_id"))
        if order_id is not None:
            detail["order_id"] = order_id

        def append(ledger: Ledger, identity: str) -> None:
            filing_id = None
            if order_id is not None:
                try:
                    filing_id = ledger.orders.by_broker_id(order_id).ref_id
                except LedgerError:
                    filing_id = None  # not an order the gateway filed
            ledger.journal.append(
                identity=identity,
                kind="cancel",
                why=f"cancel forwarded to the broker ({outcome})",
                filing_id=filing_id,
                detail=detail,
            )

        try:
            ledger = (await self._backend.guard(who.connection_id)).ledger
            identity = who.identity
            await anyio.to_thread.run_sync(append, ledger, identity)
        except Exception as error:  # the cancel went out: its answer must still reach the agent
            logger.warning("recording a cancel failed: %s", type(error).__name__)

    async def _order(
        self, who: Who, descriptor: Mapping[str, Any], arguments: dict[str, Any]
    ) -> dict[str, Any]:
        schema = descriptor.get("inputSchema")
        schema = schema if isinstance(schema, dict) else {}
        try:
            proposal = proposal_from_arguments(arguments, schema)
        except NotFiled as refusal:
            return _refusal(refusal.code, refusal.message)
        guard = await self._guard_for(who)
        identity = who.identity
        lock = self._locks.setdefault(identity, anyio.Lock())
        async with lock:  # the open count and the filing it allows, one at a time per identity
            try:
                count = await anyio.to_thread.run_sync(
                    open_count, guard.ledger, guard.account, identity
                )
            except Exception as error:
                logger.warning("counting open filings failed: %s", type(error).__name__)
                return _refusal(
                    "GATEWAY_ERROR", "The gateway could not read its record, so nothing was filed."
                )
            if count >= self._max_open:
                return _refusal(
                    "TOO_MANY_OPEN",
                    f"You already have {count} orders open through the gateway (at most "
                    f"{self._max_open}); wait for one to finish or cancel one. Nothing was filed.",
                )
            return await self._submit(guard, proposal, identity)

    async def _submit(self, guard: Guard, proposal: Proposal, identity: str) -> dict[str, Any]:
        try:
            outcome = await guard.submit(proposal, identity=identity)
        except ProposalError as error:
            return _refusal(
                "INVALID_ORDER",
                f"The order cannot be filed ({error.field}: {error.reason}). Nothing was filed "
                "or sent.",
            )
        except Exception as error:
            logger.warning("the order path failed: %s", type(error).__name__)
            return _refusal(
                "ORDER_PATH_FAILED",
                "The order path failed before it could answer. Read gate_record and your open "
                "orders before sending it again.",
            )
        return _order_result(outcome, paper=guard.paper)

    async def capability(
        self, principal: Principal, permission: str, body: object
    ) -> tuple[int, dict[str, Any]]:
        """One call through the capability broker (``POST /api/capability/NAME/ACTION``):
        the HTTP status and the JSON answer. The request names a permission and, in ``body``,
        ``{"tool": NAME, "arguments": {...}}``; the profile must grant the permission and the
        tool must be one that takes exactly it. Then it is the same call as over MCP."""
        try:
            wanted = Permission(permission)
        except ValueError:
            return 404, _error("UNKNOWN_CAPABILITY", "No such capability or action.")
        if not isinstance(body, dict) or set(body) - {"tool", "arguments"}:
            return 400, _error("INVALID_ARGUMENT", 'The body must be {"tool", "arguments"}.')
        tool, arguments = body.get("tool"), body.get("arguments", {})
        if not isinstance(tool, str) or not tool or tool in GATE_NAMES:
            return 400, _error("INVALID_ARGUMENT", "tool must name a broker tool.")
        if not isinstance(arguments, dict):
            return 400, _error("INVALID_ARGUMENT", "The arguments must be a JSON object.")
        who = await self._who(principal)
        if who.profile is None:
            return 403, _error("PROFILE_REFUSED", _sentence(UNDEFINED))
        if not who.profile.allows(wanted):
            return 403, _error("PROFILE_REFUSED", _sentence(refusal_sentence(who.profile, wanted)))
        try:
            listing = await self._catalog.listing(who.connection_id)
        except Exception as error:
            logger.warning("upstream tool list failed: %s", type(error).__name__)
            return 502, _error("UPSTREAM_UNAVAILABLE", "The broker's tool list could not be read.")
        descriptor = listing.by_name.get(tool)
        if descriptor is None:
            return 404, _error("UNKNOWN_TOOL", "No such tool.")
        if needs(descriptor, listing.order_tool) is not wanted:
            return 400, _error("INVALID_ARGUMENT", f"That tool does not take {wanted}.")
        result = await self.call("tools/call", {"name": tool, "arguments": arguments}, principal)
        answer: dict[str, Any] = result["structuredContent"]
        if not result.get("isError"):
            return 200, answer
        code = answer.get("error", {}).get("code") if isinstance(answer, dict) else None
        return (403 if code == "PROFILE_REFUSED" else 422), answer

    async def _who(self, principal: Principal) -> Who:
        """The request's ``Who``. A principal that names its own identity (a caller token)
        keeps it; otherwise the identity is the connection's (``GatewayBackend.identity``)."""
        connection_id = _connection(principal)
        named = getattr(principal, "identity", None)
        identity = named if isinstance(named, str) and named else None
        return Who(
            connection_id=connection_id,
            identity=identity or self._backend.identity(connection_id),
            profile=await self._profile_of(principal),
            named_itself=identity is not None,
        )

    async def _guard_for(self, who: Who) -> Guard:
        """The connection's guard under its profile's policy overrides (which only tighten)."""
        guard = await self._backend.guard(who.connection_id)
        profile = who.profile
        if profile is None or profile.overrides == PolicyOverrides():
            return guard
        return guard.narrowed(profile.overrides.apply(guard.policy))

    # -- the gateway's own tools -----------------------------------------------------------

    async def _gate_how(self, who: Who) -> dict[str, Any]:
        try:
            guard = await self._guard_for(who)
            identity = who.identity
            data = await anyio.to_thread.run_sync(
                lambda: how(guard, identity, max_open=self._max_open)
            )
            data["profile"] = profile_facts(who.profile)
        except Exception as error:
            logger.warning("gate_how failed: %s", type(error).__name__)
            return _refusal("GATEWAY_ERROR", "The gateway could not read its record.")
        return _answer(data, GATE_GUIDE)

    async def _gate_record(self, who: Who) -> dict[str, Any]:
        try:
            ledger = (await self._backend.guard(who.connection_id)).ledger
            identity = who.identity
            data = await anyio.to_thread.run_sync(record, ledger, identity)
        except Exception as error:
            logger.warning("gate_record failed: %s", type(error).__name__)
            return _refusal("GATEWAY_ERROR", "The gateway could not read its record.")
        return _answer(data, GATE_GUIDE)

    async def _gate_disconnect(self, who: Who) -> dict[str, Any]:
        if who.named_itself:
            return _refusal(
                "NOT_YOURS_TO_END",
                "A caller token cannot end the connection it acts on; it expires by itself.",
            )
        try:
            await self._backend.disconnect(who.connection_id)
        except Exception as error:
            logger.warning("disconnect failed: %s", type(error).__name__)
            return _refusal(
                "GATEWAY_ERROR",
                "The gateway could not erase this connection; try again, or revoke it.",
            )
        self._catalog.forget(who.connection_id)
        data = {
            "disconnected": True,
            "message": "This connection is erased: its tokens no longer work and the gateway "
            "has forgotten its session. Connect again to continue.",
        }
        return _answer(data, GATE_GUIDE)


def _filed_order(ledger: Ledger, order_id: str) -> tuple[UUID, str] | None:
    """The filing id and identity behind a broker order id, when the gateway filed it."""
    try:
        ref_id = ledger.orders.by_broker_id(order_id).ref_id
        return ref_id, ledger.filing(ref_id).identity
    except LedgerError:
        return None
