"""The gateway's MCP endpoint at ``/mcp``: the shared transport (``ordergate.mcpserve``) with
the gateway's methods — the upstream's tools passed through, every equity order through the
guard, everything that places or moves money otherwise refused — over a ``GatewayBackend``
the gateway implements.

::

    methods = GatewayMethods(backend, clock=clock, profiles=profiles)
    app = gateway_endpoint(methods, verify=verify, challenge=auth.verifier.www_authenticate,
                           public_url=public_url)

``verify`` is an async ``Verify``: a bearer token's ``Principal`` (its connection, identity,
profile and kind of credential) or ``None``. The gateway's own is
``ordergate.gateway._callers.bearer_verifier``.
"""

from ordergate.gateway.mcp._backend import GatewayBackend
from ordergate.gateway.mcp._catalog import GATE_TOOLS, ORDER_OUTPUT_SCHEMA
from ordergate.gateway.mcp._endpoint import MAX_BODY, gateway_endpoint
from ordergate.gateway.mcp._held_answers import HeldAnswers, RequestState, state_key
from ordergate.gateway.mcp._methods import GATEWAY_INFO, MAX_OPEN_PROPOSALS, GatewayMethods
from ordergate.gateway.mcp._principal import Credential, Principal, Verify
from ordergate.gateway.mcp._proposal import FILED_FIELDS
from ordergate.gateway.mcp._record import RECORD_LIMIT, record
from ordergate.gateway.mcp._routing import Route, Routing, route

__all__ = [
    "FILED_FIELDS",
    "GATEWAY_INFO",
    "GATE_TOOLS",
    "MAX_BODY",
    "MAX_OPEN_PROPOSALS",
    "ORDER_OUTPUT_SCHEMA",
    "RECORD_LIMIT",
    "Credential",
    "GatewayBackend",
    "GatewayMethods",
    "HeldAnswers",
    "Principal",
    "RequestState",
    "Route",
    "Routing",
    "Verify",
    "gateway_endpoint",
    "record",
    "route",
    "state_key",
]
