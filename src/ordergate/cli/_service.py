"""``ordergate service install``: run the gateway as its own system user under systemd.

``--print`` prints the unit and touches nothing. Otherwise, as root, it writes
``/etc/systemd/system/ordergate.service`` and a root-only secrets file
(``/etc/ordergate/ordergate.env``), creates the system user and its 0700 home unless they
exist, and prints the commands to run next; it never starts anything. ``--root DIR`` puts
every one of those (the user database too) under DIR, for packagers and tests. Exit 2 for an
option it refuses, 1 when it cannot install (not root, useradd missing or failing).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ordergate.cli._options import fail
from ordergate.core import ConfigError
from ordergate.service import (
    DEFAULT_HOME,
    DEFAULT_USER,
    ServiceError,
    ServiceUnit,
    install,
    installed_executable,
    require_root,
)

__all__ = ["service_app"]

service_app = typer.Typer(
    help="Run the gateway as its own system user (systemd).", no_args_is_help=True
)


@service_app.command("install")
def install_command(
    user: Annotated[str, typer.Option(help="The system user the gateway runs as.")] = (
        DEFAULT_USER
    ),
    home: Annotated[
        Path, typer.Option(help="Its ORDERGATE_HOME (created 0700, its own).")
    ] = DEFAULT_HOME,
    port: Annotated[int, typer.Option(help="The loopback port the gateway listens on.")] = 8787,
    print_only: Annotated[
        bool, typer.Option("--print", help="Print the unit; write and create nothing.")
    ] = False,
    root: Annotated[
        Path,
        typer.Option(help="Write everything under DIR instead of / (packagers, tests)."),
    ] = Path("/"),
) -> None:
    """Write the systemd unit and create the gateway's own user and home; start nothing."""
    if not print_only:
        try:
            require_root(user)
        except ServiceError as error:
            raise fail(f"service: {error}", 1) from None
    try:
        unit = ServiceUnit(executable=installed_executable(), user=user, home=home, port=port)
    except ConfigError as error:
        raise fail(f"configuration: {error}", 2) from None
    if print_only:
        typer.echo(unit.render(), nl=False)
        return
    try:
        installed = install(unit, root=root.absolute())
    except ServiceError as error:
        raise fail(f"service: {error}", 1) from None
    for line in installed.done:
        typer.echo(line)
    typer.echo("next:")
    for step in installed.next_steps:
        typer.echo(f"  {step}")
