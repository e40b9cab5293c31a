"""The root ``ordergate`` command and its sub-commands.

Each sub-command's module is imported when that command runs, not before (see
:mod:`ordergate.cli._lazy`): ``ordergate --help`` and ``--version`` start in a fraction of
a second. A command added here with ``app.command(...)`` works too, imported eagerly.
"""

from __future__ import annotations

from typing import Annotated

import typer

from ordergate.cli._lazy import Lazy, LazyGroup, lazy_commands

__all__ = ["app", "main"]

app = typer.Typer(
    name="ordergate",
    cls=LazyGroup,
    help="A guarded gateway and toolkit for trading a Robinhood Agentic account from AI agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)

# The root help's panels, in the order a person meets them.
SERVE = "Serve and connect"
OWNER = "The owner's acts"
WALL = "The wall: orders, status and the record"
TOOLS = "Tools and bench"

# fmt: off
lazy_commands(
    Lazy("serve", "ordergate.cli._serve", "serve_command", "Serve the gateway: MCP at /mcp with its own OAuth; every order through the guard.", SERVE),  # noqa: E501
    Lazy("login", "ordergate.cli._login", "login_command", "Sign in to Robinhood (browser, or ROBINHOOD_ACCESS_TOKEN) and keep the tokens.", SERVE),  # noqa: E501
    Lazy("whoami", "ordergate.cli._login", "whoami_command", "List the signed-in user's Robinhood accounts; the agentic one is marked.", SERVE),  # noqa: E501
    Lazy("client-config", "ordergate.cli._client_config", "client_config_command", "Print the configuration that connects an MCP client to the gateway.", SERVE),  # noqa: E501
    Lazy("connections", "ordergate.cli._connections", "connections_app", "The clients connected through the gateway: list them, revoke one.", SERVE),  # noqa: E501
    Lazy("token", "ordergate.cli._token", "token_app", "Caller-bound capability tokens for agents that cannot run an OAuth flow.", SERVE),  # noqa: E501
    Lazy("call", "ordergate.cli._call", "call_command", "Call one tool through the gateway with the caller token in ORDERGATE_CALLER_TOKEN.", SERVE),  # noqa: E501
    Lazy("keys", "ordergate.cli._keys", "keys_app", "The keys that wrap each sealed connection's data key: rotate them.", SERVE),  # noqa: E501
    Lazy("service", "ordergate.cli._service", "service_app", "Run the gateway as its own system user (systemd).", SERVE),  # noqa: E501
    Lazy("sandbox", "ordergate.cli._sandbox", "sandbox_app", "The sandbox venue: a faithful simulation of Robinhood's Agentic Trading MCP.", SERVE),  # noqa: E501
    Lazy("owner", "ordergate.cli._owner", "owner_app", "The owner's credential: the code every owner act asks for.", OWNER),  # noqa: E501
    Lazy("approvals", "ordergate.cli._approvals", "approvals_command", "List the orders waiting for the owner's approval.", OWNER),  # noqa: E501
    Lazy("approve", "ordergate.cli._approvals", "approve_command", "Approve a held order (an owner act: shows what will be placed, then asks for the owner code); it is reviewed, checked again and placed.", OWNER),  # noqa: E501
    Lazy("deny", "ordergate.cli._approvals", "deny_command", "Deny a held order: it is never sent and its reservation is released (no code needed).", OWNER),  # noqa: E501
    Lazy("pause", "ordergate.cli._controls", "pause_command", "Refuse every new order, in every process sharing the ledger, until `resume`.", OWNER),  # noqa: E501
    Lazy("resume", "ordergate.cli._controls", "resume_command", "Accept new orders again after `pause` (an owner act: asks for the owner code; with --connection, that connection's owner's code).", OWNER),  # noqa: E501
    Lazy("policy", "ordergate.cli._policy", "policy_app", "The policy the gateway enforces: apply a file (loosening asks for the owner code).", OWNER),  # noqa: E501
    Lazy("order", "ordergate.cli._order", "order_command", "Submit one equity order through the guard (paper unless live is armed).", WALL),  # noqa: E501
    Lazy("status", "ordergate.cli._status", "status_command", "Show mode, trading state, pause, 24 h spend and orders against their caps, open orders and pending approvals, and the account.", WALL),  # noqa: E501
    Lazy("reconcile", "ordergate.cli._status", "reconcile_command", "Follow every open order to its end: book fills, correct reservations, resolve unanswered orders by looking them up.", WALL),  # noqa: E501
    Lazy("why", "ordergate.cli._why", "why_command", "Print why a filing exists and what became of it: decision to grade.", WALL),  # noqa: E501
    Lazy("audit", "ordergate.cli._audit", "audit_app", "Check the ledger's tamper-evident record.", WALL),  # noqa: E501
    Lazy("record", "ordergate.cli._record", "record_app", "The graded record: each identity's graded placements and rank; grade on demand.", WALL),  # noqa: E501
    Lazy("agent", "ordergate.cli._agent", "agent_app", "Run a trading agent through the guard: paper first, every order filed and checked.", WALL),  # noqa: E501
    Lazy("tools", "ordergate.cli._tools", "tools_app", "The venue's tools: dated snapshots, listings and classified drift.", TOOLS),  # noqa: E501
    Lazy("bench", "ordergate.cli._bench", "bench", "Measure NAME against a baseline in the same run; prints JSON lines (p50/p99, ratio).", TOOLS),  # noqa: E501
)
# fmt: on


def _show_version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"ordergate {version('ordergate')}")
        raise typer.Exit()


@app.callback()
def _root(
    _version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_show_version,
            is_eager=True,
            help="Print the installed ordergate version and exit.",
        ),
    ] = False,
) -> None:
    """A guarded gateway and toolkit for trading a Robinhood Agentic account from AI agents."""


def main() -> None:
    from ordergate.core import install_redaction

    # Every log record any command writes passes the secret-value filter.
    install_redaction()
    app()
