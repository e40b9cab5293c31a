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
CryptoApiOption = Annotated[
    bool,
    typer.Option(
        "--crypto-api",
        help=(
            "Store a Crypto Trading REST API key instead of signing in: the API key and the "
            "base64 Ed25519 private key, as two lines of standard input or typed at hidden "
            "prompts (never as arguments). Kept 0600 in ORDERGATE_HOME."
        ),
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


def login_command(url: LoginUrlOption = None, crypto_api: CryptoApiOption = False) -> None:
    """Sign in to Robinhood (browser, or ROBINHOOD_ACCESS_TOKEN) and keep the tokens.

    With --crypto-api, store the Crypto Trading REST API key instead."""
    from ordergate.client import Config

    if crypto_api:
        if url:
            raise _refuse("--url does not apply to --crypto-api")
        _store_crypto_key()
        return
    anyio.run(_login, Config(url=url) if url else Config())


def _refuse(message: str) -> typer.Exit:
    Console(stderr=True).print(Text.assemble(("error: ", "red"), message), highlight=False)
    return typer.Exit(2)


def _store_crypto_key() -> None:
    """Read the two values (stdin lines, or hidden prompts at a terminal) and keep them."""
    import sys

    from ordergate.client.crypto_rest import (
        ApiKey,
        KeyFormatError,
        default_key_file,
        write_key_file,
    )
    from ordergate.core import Secret

    if sys.stdin.isatty():
        api_key = typer.prompt("API key", hide_input=True).strip()
        private_key = typer.prompt("Private key (base64)", hide_input=True).strip()
    else:
        api_key, private_key = sys.stdin.readline().strip(), sys.stdin.readline().strip()
    if not api_key or not private_key:
        raise _refuse("--crypto-api reads two lines: the API key, then the private key")
    try:
        key = ApiKey(Secret(api_key), Secret(private_key))
    except KeyFormatError as error:
        raise _refuse(str(error)) from None
    path = default_key_file()
    write_key_file(path, key)
    typer.echo(f"Crypto Trading API key kept in {path} (mode 0600).")
    typer.echo(f"Its public key (registered at Robinhood): {key.public_key}")


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
