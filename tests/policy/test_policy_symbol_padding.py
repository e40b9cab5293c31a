"""A symbol is a ticker and nothing around it (issue 12 §4.7): a proposal whose symbol has
space or a control character at either end is refused naming ``symbol``, never stripped into
the ticker it resembles; the owner's own policy file may still pad its lists."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from ordergate.core import Side
from ordergate.policy import Proposal, ProposalError, normalise_symbol, parse_policy

PADDED = [" AAPL", "AAPL ", "AAPL\n", "\tAAPL", "AAPL\u00a0", "\u2003AAPL", "AAPL\r\n",
          "\x00AAPL", "AAPL\x7f", "\u200bAAPL", "AAPL\ufeff", " aapl "]  # fmt: skip


def make(**fields: Any) -> Proposal:
    return Proposal(**{"symbol": "AAPL", "side": Side.BUY, "quantity": Decimal(1), **fields})


@pytest.mark.parametrize("symbol", PADDED)
@pytest.mark.req("gateway.bypass.symbol-padding")
def test_a_proposal_with_anything_around_its_symbol_is_refused_naming_symbol(symbol: str) -> None:
    with pytest.raises(ProposalError) as caught:
        make(symbol=symbol)
    assert caught.value.field == "symbol"


@pytest.mark.parametrize("symbol", PADDED)
def test_normalising_a_symbol_never_strips_it(symbol: str) -> None:
    assert normalise_symbol(symbol) is None


def test_a_plain_symbol_is_upper_cased_and_an_inner_oddity_is_kept_for_the_engine() -> None:
    assert make(symbol="brk.b").symbol == "BRK.B"
    assert make(symbol="BR K").symbol == "BR K"
    assert normalise_symbol("spy") == "SPY"


def test_the_owners_policy_file_may_pad_its_symbol_lists() -> None:
    policy = parse_policy('[symbols]\nallow = [" spy\\t", "QQQ"]\ndeny = [" TSLA "]\n')
    assert policy.allow == frozenset({"SPY", "QQQ"})
    assert policy.deny == frozenset({"TSLA"})


def test_a_policy_list_entry_padded_with_anything_but_spaces_and_tabs_is_refused() -> None:
    from ordergate.core import ConfigError

    with pytest.raises(ConfigError) as caught:
        parse_policy('[symbols]\nallow = ["SPY\\n"]\n')
    assert caught.value.key == "symbols.allow[0]"
