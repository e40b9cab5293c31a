"""``ordergate policy apply FILE``: make a policy file the one the gateway enforces.

The running gateway (its owner channel; else the ledger directly) compares FILE with the policy
last applied, key by key: a change that only tightens is applied at once; one that loosens
anything — a higher cap, another symbol, a longer approval life, ``approval = "never"``, live
mode — is an owner act: the gateway's summary of it (each key that changes, what loosens) is
shown, then the owner code is asked (a hidden prompt, or ``--code-stdin``). The
applied text's SHA-256 goes on the ledger, the text into the gateway's policy file, and the
running guards check orders against it from the next one on; ``ordergate serve`` then
starts only on that file (or one that only tightens it). Exit 0 applied (or already in
force), 2 a file that is not a valid policy, 5 the owner code refused.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import anyio
import typer

from ordergate.cli._desk import (
    ChannelOption,
    CodeStdinOption,
    desk_failure,
    desk_for,
    owner_act,
    said_delayed,
)
from ordergate.cli._options import DbOption, JsonOption, PolicyOption, fail, settings_from

__all__ = ["policy_app"]

policy_app = typer.Typer(
    help="The policy the gateway enforces: apply a file (loosening asks for the owner code).",
    no_args_is_help=True,
)


@policy_app.command("apply")
def apply_command(
    file: Annotated[Path, typer.Argument(help="The policy file (TOML) to put in force.")],
    code_stdin: CodeStdinOption = False,
    as_json: JsonOption = False,
    channel: ChannelOption = None,
    policy: PolicyOption = None,
    db: DbOption = None,
) -> None:
    """Apply FILE: tightening needs no code, loosening anything is an owner act."""
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
        raise fail(f"cannot read {file} ({reason})", 2) from None
    settings = settings_from(policy, db, None, False)
    result = anyio.run(_apply, settings, channel, text, code_stdin)
    if as_json:
        typer.echo(json.dumps(result, sort_keys=True))
        return
    if said_delayed(result):
        return
    if not result["applied"]:
        typer.echo(f"already in force: sha256:{result['sha256']}")
        return
    typer.echo(f"applied: sha256:{result['sha256']}")
    typer.echo(f"changed: {', '.join(result['changed']) or 'nothing that guards money'}")
    if result["loosened"]:
        typer.echo(
            f"loosened: {', '.join(result['loosened'])} (authorised by the owner's "
            f"{result['credential']})"
        )
    for note in result["notes"]:
        typer.echo(f"note: {note}", err=True)


async def _apply(settings: Any, channel: Path | None, text: str, code_stdin: bool) -> Any:
    from ordergate.gateway.desk import DeskError

    async with desk_for(channel, settings) as desk:
        try:
            return await owner_act(desk, "policy_apply", {"text": text}, code_stdin=code_stdin)
        except DeskError as error:
            raise desk_failure(error) from None
