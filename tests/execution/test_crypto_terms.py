"""A crypto filing's terms read back into the order that is sent (a damaged record is never
sent), and the hold a crypto order keeps against the daily budget while it works."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from ordergate.core import CryptoOrderType, Side
from ordergate.execution import crypto_filing_terms, crypto_hold_for, crypto_proposal_of
from ordergate.policy import (
    CryptoProposal,
    CryptoTerms,
    Decision,
    PolicyConfig,
    ProposalError,
    Stage,
)

D = Decimal
ALLOWED = Decision(True, (), Stage.ESTIMATE, False, False)
REDUCING = Decision(True, (), Stage.ESTIMATE, False, True)
REFUSED = Decision(False, (), Stage.ESTIMATE, False, False)


def proposal(**fields: Any) -> CryptoProposal:
    terms: dict[str, Any] = {
        "pair": "BTC-USD",
        "side": Side.BUY,
        "asset_quantity": D("0.01"),
        "account": "R1",
    }
    terms.update(fields)
    return CryptoProposal(**terms)


def test_filed_terms_read_back_as_the_same_order() -> None:
    order = proposal(order_type=CryptoOrderType.LIMIT, limit_price=D("100.50"))
    filed = crypto_filing_terms(order, "A1", "mcp")
    stored = {k: str(v) if isinstance(v, Decimal) else v for k, v in filed.items()}
    assert crypto_proposal_of(stored) == order
    assert (filed["lane"], filed["account_number"], filed["rhs_account_number"]) == (
        "mcp",
        "A1",
        "R1",
    )


@pytest.mark.parametrize(
    "damage",
    [{"pair": None}, {"side": "hold"}, {"asset_quantity": 1}, {"asset_quantity": "lots"}],
)
def test_a_damaged_record_does_not_describe_an_order(damage: dict[str, Any]) -> None:
    stored: dict[str, Any] = {
        "pair": "BTC-USD",
        "side": "buy",
        "type": "market",
        "time_in_force": "gtc",
        "rhs_account_number": "R1",
        "asset_quantity": "0.01",
    }
    stored.update(damage)
    if damage.get("pair", "") is None:
        del stored["pair"]
    with pytest.raises(ProposalError) as caught:
        crypto_proposal_of(stored)
    assert caught.value.field == "terms"


def test_a_crypto_order_holds_its_worst_case_until_it_ends() -> None:
    policy = PolicyConfig()
    priced = CryptoTerms(price=D(100), quantity=D("0.01"), notional=D(1))
    unpriced = CryptoTerms(price=None, quantity=D("0.01"), notional=None)
    dollars = proposal(asset_quantity=None, quote_amount=D("25.00"))
    limit = proposal(order_type=CryptoOrderType.LIMIT, limit_price=D("90.001"))
    sell = proposal(side=Side.SELL)
    assert crypto_hold_for(dollars, priced, ALLOWED, policy) == D("25.00")
    assert crypto_hold_for(limit, priced, ALLOWED, policy) == D("0.91")
    assert crypto_hold_for(proposal(), priced, ALLOWED, policy) == D("1.05")
    assert crypto_hold_for(proposal(), unpriced, ALLOWED, policy) == 0
    assert crypto_hold_for(sell, priced, ALLOWED, policy) == D("1.00")
    assert crypto_hold_for(sell, priced, REDUCING, policy) == 0
    assert crypto_hold_for(proposal(), priced, REFUSED, policy) == 0
