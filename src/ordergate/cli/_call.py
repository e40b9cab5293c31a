"""``ordergate call TOOL --args JSON``: one tool call through the gateway with a caller token,
for scripts and containers that do not speak MCP themselves.

The token is read from ``ORDERGATE_CALLER_TOKEN`` (minted on the host with ``ordergate token
mint``; never a command-line argument, where other users could read it in the process list),
the gateway from ``--url`` / ``ORDERGATE_GATEWAY_URL`` (default ``http://127.0.0.1:8787``).
It opens an MCP session, calls the tool and prints the tool's JSON answer on stdout.

Exit status: 0 the call succeeded; 3 the gateway or the broker refused it (the answer says
why); 1 the gateway could not be reached or refused the token; 2 a usage error.
"""

from __future__ import annotations

import json
import os
from typing import Annotated, Any

import typer

from ordergate.cli._options import fail
from ordergate.core import command_hint

__all__ = ["ENV_CALLER_TOKEN", "ENV_GATEWAY_URL", "call_command"]

ENV_CALLER_TOKEN = "ORDERGATE_CALLER_TOKEN"
ENV_GATEWAY_URL = "ORDERGATE_GATEWAY_URL"
_PROTOCOL = "2025-06-18"
_TIMEOUT_S = 60.0


def call_command(
    tool: Annotated[str, typer.Argument(help="The tool to call, e.g. get_equity_quotes.")],
    args: Annotated[
        str,
        typer.Option(
            "--args", help='The arguments as a JSON object, e.g. \'{"symbols": ["SPY"]}\'.'
        ),
    ] = "{}",
    url: Annotated[
        str,
        typer.Option(envvar=ENV_GATEWAY_URL, help="The gateway's URL (without /mcp)."),
    ] = "http://127.0.0.1:8787",
) -> None:
    """Call one tool through the gateway with the caller token in ORDERGATE_CALLER_TOKEN."""
    import httpx2

    token = os.environ.get(ENV_CALLER_TOKEN, "").strip()
    if not token:
        raise fail(
            f"{ENV_CALLER_TOKEN} is not set: mint one with `{command_hint('token mint')}`", 2
        )
    try:
        arguments = json.loads(args)
    except ValueError:
        raise typer.BadParameter("not JSON", param_hint="--args") from None
    if not isinstance(arguments, dict):
        raise typer.BadParameter("must be a JSON object", param_hint="--args")
    endpoint = url.rstrip("/") + "/mcp"
    headers = {"authorization": f"Bearer {token}", "accept": "application/json, text/event-stream"}
    try:
        with httpx2.Client(timeout=_TIMEOUT_S) as http:
            session = _initialize(http, endpoint, headers)
            headers |= {"mcp-session-id": session, "mcp-protocol-version": _PROTOCOL}
            http.post(
                endpoint,
                json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                headers=headers,
            )
            answer = _rpc(
                http, endpoint, headers, "tools/call", {"name": tool, "arguments": arguments}
            )
    except httpx2.HTTPError as error:
        raise fail(
            f"the gateway at {url} could not be reached ({type(error).__name__})", 1
        ) from None
    if "error" in answer:
        message = answer["error"].get("message") if isinstance(answer["error"], dict) else None
        raise fail(f"the gateway refused the request: {message or 'no reason given'}", 3)
    result = answer.get("result")
    if not isinstance(result, dict):
        raise fail("the gateway answered something that is not a tool result", 1)
    content = result.get("structuredContent")
    typer.echo(json.dumps(content, indent=2, sort_keys=True))
    if result.get("isError"):
        raise typer.Exit(3)


def _initialize(http: Any, endpoint: str, headers: dict[str, str]) -> str:
    response = http.post(
        endpoint,
        json={
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": _PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "ordergate-call", "version": "1"},
            },
        },
        headers=headers,
    )
    if response.status_code == 401:
        raise fail(
            "the gateway refused the caller token (expired, altered, signed with another key, "
            "or naming a connection that has ended)",
            1,
        )
    if response.status_code != 200:
        raise fail(f"the gateway answered HTTP {response.status_code} to the handshake", 1)
    session = response.headers.get("mcp-session-id")
    if not session:
        raise fail("the gateway opened no MCP session", 1)
    return str(session)


def _rpc(
    http: Any, endpoint: str, headers: dict[str, str], method: str, params: dict[str, Any]
) -> dict[str, Any]:
    response = http.post(
        endpoint,
        json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params},
        headers=headers,
    )
    if response.status_code not in (200, 400):
        raise fail(f"the gateway answered HTTP {response.status_code}", 1)
    body = response.json()
    if not isinstance(body, dict):
        raise fail("the gateway answered something that is not JSON-RPC", 1)
    return body
