"""Human output shows money to the cent; a decision that lost a race says so with exit 6."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest

from ordergate.cli._approvals import _decided
from ordergate.core import usd


@pytest.mark.req("cli.money-cents")
@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("24.99977156", "$25.00"),
        (Decimal("0.005"), "$0.00"),  # half to even
        ("0.015", "$0.02"),
        ("1234567.891", "$1,234,567.89"),
        (500, "$500.00"),
        ("-5", "-$5.00"),
        ("not a number", "$not a number"),
        ("NaN", "$NaN"),
    ],
)
def test_money_is_shown_to_the_cent(value: object, shown: str) -> None:
    assert usd(value) == shown


def _body(reasons: list[str]) -> dict[str, Any]:
    return {
        "filing_id": "f", "status": "filled", "accepted": True, "refused": False,
        "uncertain": False, "reasons": reasons, "stage": None, "approval_id": "a",
        "order_id": None, "broker_code": None, "message": "Placed and filled.", "mode": "paper",
    }  # fmt: skip


@pytest.mark.req("cli.decided-twice")
def test_a_decision_that_lost_the_race_says_so_and_exits_6(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _decided(_body(["approval_already_decided"]), as_json=False, code=0) == 6
    out = capsys.readouterr()
    assert out.out == ""
    assert "already decided (the order is filled); nothing changed" in out.err
    assert _decided(_body(["approval_already_decided"]), as_json=True, code=0) == 6
    assert json.loads(capsys.readouterr().out)["reasons"] == ["approval_already_decided"]


def test_a_decision_that_acted_prints_the_outcome_and_keeps_its_code(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _decided(_body([]), as_json=False, code=0) == 0
    assert "Placed and filled." in capsys.readouterr().out
