"""The gateway: an MCP server with its own OAuth that any MCP client can point at instead of
Robinhood. It passes reads through, puts every order through the guard, and shows each agent
only what its profile permits.

The request path, in the order a request meets it:

- ``ordergate.mcpserve.HostCheck``: ``Host`` and ``Origin`` must name the gateway or a
  loopback name (DNS rebinding), on every route;
- ``_limits``: per-IP rate limits by request class (the peer, or the client a proxy named
  with ``--trusted-proxy`` reports: ``_proxies``) and the 8 KB body cap, before any route;
- ``oauth``: the gateway's own authorization server (metadata, registration, the consent page
  with its profile choice, codes and rotating tokens, SHA-256 only at rest), and
  ``_callers``: the one verifier that resolves a bearer token — OAuth or caller-bound
  (``ordergate.callers``) — to the request's ``Principal`` (connection, identity, profile);
- ``custody``: where each connection signs in at the upstream and keeps that session sealed
  (under a data key of its own, wrapped by a key provider's KEK: ``keys``), else ``_owner``:
  every connection acts on the owner's one session;
- ``mcp``: the MCP methods — the profile's view of the upstream's tools, routing by the words
  of a tool's name to one handler per route (reads forwarded, the equity order tool through
  the guard, cancels of the connection's own orders only, the gateway's own tools), refusals
  in fixed sentences — served at ``/mcp`` (sessions bound to their principal) and, for
  agents that do not speak MCP, by ``_broker`` at ``/api/capability/NAME/ACTION``;
- ``_metrics``: Prometheus counters and upstream latency at ``/metrics``.

``_app`` assembles them; ``_serve`` runs them (``ordergate serve``).
"""

from ordergate.gateway._seal import Sealer, SealError

__all__ = ["SealError", "Sealer"]
