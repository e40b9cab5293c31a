"""``ordergate sandbox serve``: the venue in the foreground until interrupted."""

from __future__ import annotations

import asyncio

import uvicorn
from rich.console import Console

from ordergate.sandbox._app import build_sandbox
from ordergate.sandbox._config import SandboxConfig
from ordergate.sandbox._server import bind_socket

__all__ = ["serve_forever"]


def serve_forever(config: SandboxConfig, *, console: Console) -> None:
    sock = bind_socket(config.host, config.port)
    port = sock.getsockname()[1]
    sandbox = build_sandbox(config, base_url=config.base_url(port))
    agentic = sandbox.venue.accounts.agentic
    console.print(
        "[bold]ordergate sandbox venue[/bold] — simulated, no real account, no real money"
    )
    console.print(f"  MCP endpoint     {sandbox.mcp_url}")
    console.print(f"  clock            {config.clock} from {sandbox.venue.now().isoformat()}")
    console.print(f"  seed             {config.seed}")
    console.print(f"  agentic account  {agentic.account_number}")
    if config.admin:
        console.print(f"  admin (loopback) {sandbox.base_url}/_sandbox/state")
    console.print("Press Ctrl+C to stop.")
    server = uvicorn.Server(
        uvicorn.Config(sandbox.app, log_level="warning", access_log=False, lifespan="off")
    )
    try:
        asyncio.run(server.serve(sockets=[sock]))
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
