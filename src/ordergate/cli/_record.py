"""``ordergate record`` and ``ordergate record grade``: the graded record, for the owner.

``ordergate record [--json]`` prints each identity's track record (graded count, mean and
median excess bps over SPY, hit rate, and its rank once thirty placements are graded), with
the identity in full and its public id, and how many fills wait for their close. It reads
the ledger only.

``ordergate record grade [--json]`` runs one grading pass now, as ``serve`` does in the
background: it queues the fills filed since the last pass and grades each one whose close
one trading day on is known, reading closes from the upstream's historicals (or the embedded
sandbox's market with ``--sandbox``). A fill whose close is not known yet stays pending; a
re-run changes no grade. Exit 2 when the ledger cannot be opened, 1 when the upstream cannot
be reached.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import anyio
import typer

from ordergate.cli._options import (
    DbOption,
    JsonOption,
    PolicyOption,
    SandboxOption,
    UpstreamOption,
    fail,
    settings_from,
)
from ordergate.core import RealtimeClock, ToolError

if TYPE_CHECKING:
    from ordergate.ledger import Ledger
    from ordergate.runtime import Settings

__all__ = ["record_app"]

record_app = typer.Typer(
    help="The graded record: each identity's graded placements and rank; grade on demand.\n\n"
    "Each filled placement is graded a trading day on against SPY, and each identity keeps "
    "a track record. Alone, prints each identity's track record (graded count, "
    "mean and median excess bps, hit rate, rank once thirty are graded); `record grade` "
    "grades what is due now.",
)


def _open(db: str | None) -> Ledger:
    from ordergate.ledger import LedgerError, open_ledger

    try:
        return open_ledger(db, clock=RealtimeClock(), create=False)
    except LedgerError as error:
        raise fail(f"cannot open the ledger: {error}", 2) from None


@record_app.callback(invoke_without_command=True)
def record_command(ctx: typer.Context, as_json: JsonOption = False, db: DbOption = None) -> None:
    """Each identity's track record; `ordergate record grade` grades what is due now."""
    if ctx.invoked_subcommand is not None:
        return
    from ordergate.record import owner_view

    with _open(db) as ledger:
        body = owner_view(ledger.engine)
    if as_json:
        typer.echo(json.dumps(body, sort_keys=True))
        return
    if not body["records"]:
        typer.echo("no graded placements yet")
    for record in body["records"]:
        rank = "unranked" if record["rank"] is None else f"rank {record['rank']}"
        typer.echo(
            f"{record['identity']} ({record['public_id']}): {record['graded']} graded, "
            f"mean {record['mean_excess_bps']} bps, median {record['median_excess_bps']} bps, "
            f"hit rate {record['hit_rate']}, {rank}"
        )
    typer.echo(f"{body['pending']} fills wait for their close")


@record_app.command("grade")
def grade_command(
    as_json: JsonOption = False,
    policy: PolicyOption = None,
    db: DbOption = None,
    upstream: UpstreamOption = None,
    sandbox: SandboxOption = False,
) -> None:
    """Run one grading pass now: queue new fills, grade those whose close is known."""
    settings = settings_from(policy, db, upstream, sandbox)
    # The work, output included, happens inside ``anyio.run``: nothing follows the run in
    # this frame, whose tracing CPython 3.11 can lose after a cancelled task group
    # (python/cpython#106749).
    anyio.run(_grade, settings, as_json)


async def _grade(settings: Settings, as_json: bool) -> None:
    body = await _pass(settings)
    if as_json:
        typer.echo(json.dumps(body, sort_keys=True))
        return
    typer.echo(
        f"queued {body['queued']}, graded {body['graded']}, not yet {body['not_yet']}, "
        f"unreachable {body['unreachable']}"
    )


async def _pass(settings: Settings) -> dict[str, Any]:
    from ordergate.calendar import NyseCalendar
    from ordergate.record import Grader, MarketCloses
    from ordergate.runtime import open_upstream

    clock = settings.clock()
    with _open(settings.db_url) as ledger:
        try:
            async with open_upstream(settings, clock=clock) as upstream:
                calendar = NyseCalendar()
                closes = MarketCloses(upstream.rh.market, calendar=calendar, clock=clock)
                report = await Grader(ledger, closes, clock=clock, calendar=calendar).run_once()
        except ToolError as error:
            raise fail(f"upstream: {error}", 1) from None
    return report.as_json()
