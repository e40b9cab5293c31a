"""``ordergate sandbox serve``: the venue in the foreground until interrupted."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ordergate._serving import bind_socket, serve_foreground
from ordergate.sandbox._app import build_sandbox
from ordergate.sandbox._config import SandboxConfig

if TYPE_CHECKING:
    from rich.console import Console  # only ``sandbox serve`` prints; embedding never does

__all__ = ["serve_forever"]


def serve_forever(config: SandboxConfig, *, console: Console) -> None:
    sock = bind_socket(config.host, config.port)
    port = sock.getsockname()[1]
    sandbox = build_sandbox(config, base_url=config.base_url(port))
    agentic = sandbox.venue.accounts.agentic

    def banner() -> None:
        console.print(
            "[bold]ordergate sandbox venue[/bold] — simulated, no real account, no real money"
        )
        console.print(f"  MCP endpoint     {sandbox.mcp_url}")
        console.print(f"  clock            {config.clock} from {sandbox.venue.now().isoformat()}")
        console.print(f"  seed             {config.seed}")
        console.print(
            f"  agentic account  {agentic.account_number} ({agentic.type}, {agentic.option_level})"
        )
        if config.users:
            # Names only: the passwords are the admin's to tell (GET /_sandbox/users).
            console.print(f"  users            {', '.join(config.users)} (each their own accounts)")
        if config.admin:
            console.print(f"  admin (loopback) {sandbox.base_url}/_sandbox/state")
        console.print("Press Ctrl+C to stop.")

    # The banner waits until the server is serving, so whoever reads it can connect at once.
    serve_foreground(sandbox.app, sock, on_ready=banner)
