"""Printing an order's outcome and the exit code it means.

Exit 0: the order is accepted (placed, filled, or waiting for an approval); 3: refused, by
the policy, a person or the broker (nothing is live); 4: the broker did not answer, so the
order may be live (read open orders, or run ``ordergate reconcile``, before sending again).
The outcome is the JSON form both the guard (``Outcome.as_json``) and the owner route give.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from ordergate.execution import Outcome

__all__ = ["EXIT_REFUSED", "EXIT_UNANSWERED", "exit_code", "print_body", "print_outcome"]

EXIT_REFUSED = 3
EXIT_UNANSWERED = 4


def print_outcome(outcome: Outcome, *, mode: str, as_json: bool) -> None:
    print_body(outcome.as_json(mode=mode), as_json=as_json)


def print_body(body: dict[str, Any], *, as_json: bool) -> None:
    """An outcome (``Outcome.as_json``) as JSON on one line, or as aligned lines."""
    if as_json:
        typer.echo(json.dumps(body, sort_keys=True))
        return
    typer.echo(f"filing    {body['filing_id']}")
    typer.echo(f"status    {body['status']}")
    typer.echo(f"decision  {'accepted' if body['accepted'] else 'refused'}")
    if body["reasons"]:
        typer.echo(f"reasons   {', '.join(body['reasons'])}")
    for label, key in (
        ("stage   ", "stage"),
        ("broker  ", "broker_code"),
        ("approval", "approval_id"),
        ("order   ", "order_id"),
    ):
        if body.get(key):
            typer.echo(f"{label}  {body[key]}")
    typer.echo(f"mode      {body['mode']}")
    typer.echo(body["message"])


def exit_code(body: dict[str, Any]) -> int:
    """The exit code an outcome (``Outcome.as_json``) means."""
    if body["refused"]:
        return EXIT_REFUSED
    if body["uncertain"]:
        return EXIT_UNANSWERED
    return 0
