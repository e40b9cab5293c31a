"""``ordergate bench NAME``: one JSON object per measured case on stdout."""

from __future__ import annotations

from typing import Annotated

import typer

from ordergate.bench import BENCHES, Summary, json_line, run_bench

__all__ = ["bench"]


def bench(
    name: Annotated[str, typer.Argument(help=f"Which benchmark: {', '.join(BENCHES)}.")],
    quick: Annotated[bool, typer.Option(help="A short run (under a minute).")] = False,
) -> None:
    """Measure NAME against a baseline in the same run; prints JSON lines (p50/p99, ratio)."""
    if name not in BENCHES:
        raise typer.BadParameter(
            f"unknown benchmark (known: {', '.join(BENCHES)})", param_hint="NAME"
        )

    def emit(summary: Summary) -> None:
        typer.echo(json_line(summary.as_json()))

    run_bench(name, quick=quick, emit=emit)
