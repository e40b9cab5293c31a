"""One call through the capability broker (``POST /api/capability/NAME/ACTION``).

The request names a permission and, in its body, ``{"tool": NAME, "arguments": {...}}``; the
profile must grant the permission and the tool must be one that takes exactly it. Then it is
the same ``tools/call`` as over MCP, with the same answer, and an HTTP status that says how it
went: 200, 400 for a malformed body, 403 when the profile refuses, 404 for an unknown
capability or tool, 422 for any other refusal, 502 when the broker's list cannot be read.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from ordergate.gateway.mcp._answers import sentence
from ordergate.gateway.mcp._principal import Principal
from ordergate.gateway.mcp._profiles import GATE_NAMES, UNDEFINED, needs, refusal_sentence
from ordergate.mcpserve import EncodedResult
from ordergate.profiles import Permission

if TYPE_CHECKING:
    from ordergate.gateway.mcp._methods import GatewayMethods

__all__ = ["capability"]

logger = logging.getLogger(__name__)


def _error(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


async def capability(
    methods: GatewayMethods, principal: Principal, permission: str, body: object
) -> tuple[int, dict[str, Any]]:
    """The HTTP status and the JSON answer of one broker call."""
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
    profile = methods.profile(principal)
    if profile is None:
        return 403, _error("PROFILE_REFUSED", sentence(UNDEFINED))
    if not profile.allows(wanted):
        return 403, _error("PROFILE_REFUSED", sentence(refusal_sentence(profile, wanted)))
    try:
        listing = await methods.listing(principal)
    except Exception as error:
        logger.warning("upstream tool list failed: %s", type(error).__name__)
        return 502, _error("UPSTREAM_UNAVAILABLE", "The broker's tool list could not be read.")
    descriptor = listing.by_name.get(tool)
    if descriptor is None:
        return 404, _error("UNKNOWN_TOOL", "No such tool.")
    if needs(descriptor, listing.order_tool) is not wanted:
        return 400, _error("INVALID_ARGUMENT", f"That tool does not take {wanted}.")
    called = await methods.call("tools/call", {"name": tool, "arguments": arguments}, principal)
    result = called.decoded() if isinstance(called, EncodedResult) else called
    answer: dict[str, Any] = result["structuredContent"]
    if not result.get("isError"):
        return 200, answer
    code = answer.get("error", {}).get("code") if isinstance(answer, dict) else None
    return (403 if code == "PROFILE_REFUSED" else 422), answer
