"""The root ``ordergate`` command and its sub-commands."""

from __future__ import annotations

import typer

from ordergate.cli._approvals import approvals_command, approve_command, deny_command
from ordergate.cli._audit import audit_app
from ordergate.cli._bench import bench
from ordergate.cli._call import call_command
from ordergate.cli._client_config import client_config_command
from ordergate.cli._connections import connections_app
from ordergate.cli._controls import pause_command, resume_command
from ordergate.cli._login import login_command, whoami_command
from ordergate.cli._order import order_command
from ordergate.cli._owner import owner_app
from ordergate.cli._policy import policy_app
from ordergate.cli._record import record_app
from ordergate.cli._sandbox import sandbox_app
from ordergate.cli._serve import serve_command
from ordergate.cli._service import service_app
from ordergate.cli._status import reconcile_command, status_command
from ordergate.cli._token import token_app
from ordergate.cli._tools import tools_app
from ordergate.core import install_redaction

__all__ = ["app", "main"]

app = typer.Typer(
    name="ordergate",
    help="A guarded gateway and toolkit for trading a Robinhood Agentic account from AI agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)
app.add_typer(sandbox_app, name="sandbox")
app.add_typer(tools_app, name="tools")
app.add_typer(audit_app, name="audit")
app.add_typer(token_app, name="token")
app.add_typer(owner_app, name="owner")
app.add_typer(policy_app, name="policy")
app.add_typer(connections_app, name="connections")
app.add_typer(service_app, name="service")
app.add_typer(record_app, name="record")
app.command("bench")(bench)
app.command("login")(login_command)
app.command("whoami")(whoami_command)
app.command("pause")(pause_command)
app.command("resume")(resume_command)
app.command("serve")(serve_command)
app.command("order")(order_command)
app.command("status")(status_command)
app.command("reconcile")(reconcile_command)
app.command("approvals")(approvals_command)
app.command("approve")(approve_command)
app.command("deny")(deny_command)
app.command("call")(call_command)
app.command("client-config")(client_config_command)


def main() -> None:
    # Every log record any command writes passes the secret-value filter.
    install_redaction()
    app()
