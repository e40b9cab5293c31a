"""``ordergate login`` and ``ordergate whoami``: sign in to Robinhood, and show who we are.

Neither ever prints a token: ``login`` says where the token file is (``ORDERGATE_HOME``),
``whoami`` lists the accounts with the agentic one marked. The client is imported inside the
commands so ``ordergate sandbox serve`` does not pay for the MCP client at start-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import anyio
import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ordergate.core import ToolError

if TYPE_CHECKING:
    from ordergate.client import Config

__all__ = ["login_command", "whoami_command"]

LoginUrlOption = Annotated[
    str | None,
    typer.Option(
        "--url",
        help="The Agentic MCP endpoint to sign in to (default: Robinhood's).",
        show_default=False,
    ),
]
UrlOption = Annotated[
    str | None,
    typer.Option(
        "--url",
        help="The Agentic MCP endpoint (default: where `ordergate login` signed in).",
        show_default=False,
    ),
]


def _config(url: str | None) -> Config:
    """``--url``, else where ``ordergate login`` signed in (``LoginRequired`` if nowhere)."""
    from ordergate.client import Config

    return Config(url=url) if url else Config.signed_in()


def _fail(error: ToolError) -> typer.Exit:
    # Text, not markup: a message naming a path with brackets must print as it is.
    Console(stderr=True).print(Text.assemble(("error: ", "red"), str(error)), highlight=False)
    return typer.Exit(1)


# Each command's work, output included, happens inside ``anyio.run``: nothing follows the
# run in the calling frame, whose tracing CPython 3.11 can lose after a cancelled task group
# (python/cpython#106749).


def login_command(url: LoginUrlOption = None) -> None:
    """Sign in to Robinhood (browser, or ROBINHOOD_ACCESS_TOKEN) and keep the tokens."""
    from ordergate.client import Config

    anyio.run(_login, Config(url=url) if url else Config())


def whoami_command(url: UrlOption = None) -> None:
    """List the signed-in user's Robinhood accounts; the agentic one is marked."""
    anyio.run(_whoami, url)


async def _login(config: Config) -> None:
    from ordergate.client import login

    try:
        account_number = await login(config)
    except ToolError as error:
        raise _fail(error) from None
    typer.echo(f"Signed in. Agentic account: {account_number}")
    typer.echo(f"Tokens kept in {config.token_file} (mode 0600).")


async def _whoami(url: str | None) -> None:
    from ordergate.client import connect

    try:
        async with connect(_config(url)) as robinhood:
            accounts = await robinhood.accounts.accounts()
    except ToolError as error:
        raise _fail(error) from None
    table = Table(title="Robinhood accounts")
    for column in ("agentic", "account", "type", "nickname"):
        table.add_column(column)
    for account in accounts:
        table.add_row(
            "*" if account.agentic_allowed else "",
            account.account_number,
            account.type,
            account.nickname or "",
        )
    Console(width=120).print(table)
