"""The owner console's option views, on an account at the sandbox in live mode: a debit
vertical held for approval shows each leg, its strategy, max loss, premium and (once
reviewed) collateral on the approvals pages; once approved and filled the filings page lists
it under its underlying with its legs, and the positions page its open contracts (long and
short), their marks and expiry."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any, cast

import pytest
from options_kit import answer_data, at_natural, leg, near_money, option_gateway, option_policy

from ordergate.gateway.console._filings import FilingFilter, filings_view
from ordergate.gateway.console._options import approvals_with_options, option_positions
from ordergate.gateway.console._web import PREFIX, Web
from ordergate.ledger import FilingStatus
from ordergate.runtime import approval_announcement

pytestmark = pytest.mark.anyio


def _render(name: str, **values: Any) -> str:
    """The console's own template ``name``, rendered as its pages are."""
    web = Web(sessions=cast(Any, None), public_url="http://127.0.0.1:1")
    return web.templates.get_template(name).render(prefix=PREFIX, csrf="c", **values)


async def test_an_option_order_is_shown_leg_by_leg_on_approvals_filings_and_positions(
    tmp_path: Path,
) -> None:
    async with option_gateway(tmp_path, config=option_policy(approval="always")) as gw:
        low, high = near_money(gw, "call"), near_money(gw, "call", 2)
        legs = [leg(low["id"]), leg(high["id"], "sell")]
        arguments = at_natural(gw, legs)
        assert arguments["direction"] == "debit", arguments
        placed = answer_data(await gw.call("place_option_order", arguments))
        assert placed["status"] == "pending_approval", placed
        (approval,) = gw.ledger.approvals.pending()
        record = gw.ledger.filing(approval.filing_id)
        (waiting,) = approvals_with_options(gw.ledger, [approval_announcement(approval, record)])
        approval_page = _render("approval.html", approval=waiting, passkey=False, base="")
        listed = _render("_approvals_list.html", approvals=[waiting])

        approved = await gw.guard.approve(approval.id, by="owner")
        assert approved.status is FilingStatus.SUBMITTED, approved
        gw.clock.advance(timedelta(seconds=3))
        await gw.guard.reconcile()
        assert gw.ledger.filing(record.id).status is FilingStatus.FILLED
        (filing,) = filings_view(gw.ledger, FilingFilter(symbol="AAPL"))
        filings_page = _render("filings.html", filings=[filing], wanted=FilingFilter())
        persons_page = _render("mine_filings.html", filings=[filing])
        positions = await option_positions(gw.guard)
        assert positions is not None
        positions_page = _render(
            "positions.html",
            account={"source": "broker", "cash": "1", "positions": [], "notes": [],
                     "option_positions": positions},
            drawdown={},
            chart="",
        )  # fmt: skip

    option = waiting["option"]
    assert option["underlying"] == "AAPL" and option["direction"] == "debit"
    assert option["strategy"] == "debit_vertical"
    assert [item["option_id"] for item in option["legs"]] == [low["id"], high["id"]]
    assert option["legs"][0]["text"].startswith("buy to open 1x AAPL ")
    assert option["legs"][1]["text"].startswith("sell to open 1x AAPL ")
    assert (
        Decimal(option["max_loss"])
        == Decimal(option["premium_usd"])
        == Decimal(arguments["price"]) * 100
    )
    assert "debit AAPL option order" in approval_page
    for item in option["legs"]:
        assert item["text"] in approval_page
    assert "debit_vertical" in approval_page and "Max loss</dt><dd>$" in approval_page
    assert "debit_vertical · 2 legs × 1" in listed

    assert filing["symbol"] == "AAPL" and filing["side"] == "debit"
    assert filing["option"]["strategy"] == "debit_vertical"
    assert filing["option"]["collateral"] is not None  # the review's, once it got that far
    assert "<strong>debit AAPL</strong>" in filings_page
    assert filing["option"]["legs"][1]["text"] in filings_page
    assert "<strong>debit AAPL</strong>" in persons_page  # a person's own filings page too
    assert filing["option"]["legs"][0]["text"] in persons_page

    assert {row["option_id"]: row["contracts"] for row in positions} == {
        low["id"]: "1",
        high["id"]: "-1",
    }
    assert {row["expiry"] for row in positions} == {low["expiration_date"]}
    assert all(row["mark"] is not None and row["market_value"] is not None for row in positions)
    assert "Option positions" in positions_page
    assert f"AAPL {low['expiration_date']}" in positions_page


async def test_an_exercise_request_is_shown_by_its_contract_on_approvals_and_filings(
    tmp_path: Path,
) -> None:
    async with option_gateway(tmp_path) as gw:
        call = near_money(gw, "call")
        asked = await gw.call(
            "exercise_option",
            {"account_number": gw.account, "option_id": call["id"], "quantity": 2},
        )
        assert answer_data(asked)["status"] == "pending_approval", asked
        (approval,) = gw.ledger.approvals.pending()
        record = gw.ledger.filing(approval.filing_id)
        (waiting,) = approvals_with_options(gw.ledger, [approval_announcement(approval, record)])
        approval_page = _render("approval.html", approval=waiting, passkey=False, base="")
        listed = _render("_approvals_list.html", approvals=[waiting])
        (filing,) = filings_view(gw.ledger, FilingFilter(symbol="AAPL"))
        filings_page = _render("filings.html", filings=[filing], wanted=FilingFilter())
    contract = f"AAPL {call['expiration_date']} {record.terms['contract']['strike']} call"
    assert waiting["option"] == {
        "act": "exercise",
        "underlying": "AAPL",
        "contract": contract,
        "option_id": call["id"],
        "quantity": 2,
    }
    assert f"<h1>Exercise {contract}</h1>" in approval_page
    assert "Contracts</dt><dd>2</dd>" in approval_page and "None" not in approval_page
    assert f"Exercise {contract}</strong>" in listed and "2 contracts" in listed
    assert filing["symbol"] == "AAPL" and filing["side"] == "exercise"
    assert contract in filings_page
