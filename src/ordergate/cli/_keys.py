"""``ordergate keys rotate``: a new key-encryption key for the sealed connections' data keys.

Under sealed custody each connection's upstream session is encrypted under a data key of its
own, and the data key is stored only wrapped by the key provider's key-encryption key (KEK):
the master secret's (the default) or a non-extractable key on a PKCS#11 token
(``--key-provider pkcs11``). ``rotate`` has the provider make a new KEK and re-wraps every data
key under it, one connection at a time, inside the provider: no session is ever decrypted.
It may run while the gateway serves; every connection keeps working. An interrupted rotation
leaves every connection openable (an old KEK is retired only once no data key uses it): run it
again to finish.
"""

from __future__ import annotations

import json
import os
from typing import Annotated

import typer

from ordergate.cli._options import DbOption, JsonOption, fail, open_existing_ledger

__all__ = ["keys_app"]

keys_app = typer.Typer(
    help="The keys that wrap each sealed connection's data key: rotate them.",
    no_args_is_help=True,
)

KeyProviderOption = Annotated[
    str,
    typer.Option(
        "--key-provider",
        envvar="ORDERGATE_KEY_PROVIDER",
        help=(
            "Who holds the key-encryption key: 'master' (derived from ORDERGATE_MASTER_SECRET) "
            "or 'pkcs11' (the token ORDERGATE_PKCS11_MODULE and ORDERGATE_PKCS11_TOKEN name; "
            "its PIN in the 0600 file ORDERGATE_PKCS11_PIN_FILE or in ORDERGATE_PKCS11_PIN, "
            "never on the command line). Use the gateway's own."
        ),
    ),
]


@keys_app.command("rotate")
def rotate_command(
    key_provider: KeyProviderOption = "master",
    as_json: JsonOption = False,
    db: DbOption = None,
) -> None:
    """Make a new key-encryption key and re-wrap every connection's data key under it.

    With --key-provider pkcs11 the token makes the new key and does every re-wrap itself (a
    data key is unwrapped there as a sensitive object and wrapped again); the old key is
    destroyed on the token once no data key uses it, so a copy of the database taken before
    the rotation no longer opens any session. With the master secret the key changes with the
    secret: set the new ORDERGATE_MASTER_SECRET and the old one as
    ORDERGATE_MASTER_SECRET_PREVIOUS, run this, then unset the previous one (and restart the
    gateway with the new secret). Connections sealed before data keys existed move to data
    keys of their own first. Prints a line of progress every 100 connections; exit 2 when a
    connection's data key did not unwrap (it is left as it was: run again with the provider
    that holds its key).
    """
    from ordergate.core import ConfigError, Secret
    from ordergate.gateway import Sealer, SealError
    from ordergate.gateway.custody import rotate_keys
    from ordergate.gateway.keys import KeyProviderError, provider_from_env

    master = os.environ.get("ORDERGATE_MASTER_SECRET") or ""
    if not master:
        raise fail("ORDERGATE_MASTER_SECRET: must be set (the gateway's own)", 2)
    try:
        keys = provider_from_env(os.environ, Secret(master), choice=key_provider)
        previous = os.environ.get("ORDERGATE_MASTER_SECRET_PREVIOUS") or ""
        sealers = [Sealer(Secret(value)) for value in (master, previous) if value]
    except (ConfigError, SealError) as error:
        raise fail(f"configuration: {error}", 2) from None
    except KeyProviderError as error:
        raise fail(f"key provider: {error}", 2) from None
    ledger = open_existing_ledger(db)

    def progress(done: int, total: int) -> None:
        if done % 100 == 0 or done == total:
            typer.echo(f"re-wrapped {done}/{total}", err=True)

    try:
        rotation = rotate_keys(ledger.engine, keys, sealers=sealers, progress=progress)
    except KeyProviderError as error:
        raise fail(f"key provider: {error}", 2) from None
    finally:
        keys.close()
        ledger.close()
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "key_id": rotation.key_id,
                    "rewrapped": rotation.rewrapped,
                    "moved": rotation.moved,
                    "retired": rotation.retired,
                    "unopened": rotation.unopened,
                },
                sort_keys=True,
            )
        )
    else:
        typer.echo(
            f"every data key is under {rotation.key_id}: {rotation.rewrapped} re-wrapped, "
            f"{rotation.moved} moved from the master secret's own key"
        )
        if rotation.retired:
            typer.echo(f"retired: {', '.join(rotation.retired)}")
        for connection_id in rotation.unopened:
            typer.echo(
                f"{connection_id}: its data key did not unwrap with this provider; left as it was",
                err=True,
            )
    if rotation.unopened:
        raise typer.Exit(2)
