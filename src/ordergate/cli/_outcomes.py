"""Printing an ``Outcome`` and the exit code it means.

Exit 0: the order is accepted (placed, filled, or waiting for an approval); 3: refused, by
the policy, a person or the broker (nothing is live); 4: the broker did not answer, so the
order may be live (read open orders, or run ``ordergate reconcile``, before sending again).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from ordergate.execution import Outcome

__all__ = ["EXIT_REFUSED", "EXIT_UNANSWERED", "exit_code", "outcome_json", "print_outcome"]

EXIT_REFUSED = 3
EXIT_UNANSWERED = 4


def outcome_json(outcome: Outcome, *, mode: str) -> dict[str, Any]:
    return {
        "filing_id": str(outcome.filing_id),
        "status": outcome.status.value,
        "accepted": not outcome.refused and not outcome.uncertain,
        "reasons": list(outcome.reasons),
        "stage": None if outcome.stage is None else outcome.stage.value,
        "approval_id": None if outcome.approval_id is None else str(outcome.approval_id),
        "order_id": outcome.order_id,
        "broker_code": outcome.broker_code,
        "message": outcome.message,
        "mode": mode,
    }


def print_outcome(outcome: Outcome, *, mode: str, as_json: bool) -> None:
    body = outcome_json(outcome, mode=mode)
    if as_json:
        typer.echo(json.dumps(body, sort_keys=True))
        return
    typer.echo(f"filing    {body['filing_id']}")
    typer.echo(f"status    {body['status']}")
    typer.echo(f"decision  {'accepted' if body['accepted'] else 'refused'}")
    if outcome.reasons:
        typer.echo(f"reasons   {', '.join(outcome.reasons)}")
    if outcome.stage is not None:
        typer.echo(f"stage     {outcome.stage.value}")
    if outcome.broker_code:
        typer.echo(f"broker    {outcome.broker_code}")
    if outcome.approval_id is not None:
        typer.echo(f"approval  {outcome.approval_id}")
    if outcome.order_id:
        typer.echo(f"order     {outcome.order_id}")
    typer.echo(f"mode      {mode}")
    typer.echo(outcome.message)


def exit_code(outcome: Outcome) -> int:
    if outcome.refused:
        return EXIT_REFUSED
    if outcome.uncertain:
        return EXIT_UNANSWERED
    return 0
