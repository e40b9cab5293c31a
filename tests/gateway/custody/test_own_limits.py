"""A connection's own limits narrow the rail's policy cap by cap, options' caps included, and
whatever their values they never loosen it."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from ordergate.gateway.custody import OwnLimits
from ordergate.gateway.custody._person_limits import DIRECTIONS, cap_of
from ordergate.policy import parse_policy

CEILING = parse_policy(
    '[limits]\nmax_order_usd = "100"\nmin_cash_usd = "10"\n'
    '[options]\nunderlyings = ["AAPL"]\nmax_premium_usd = "100"\nmax_contracts = 3\n'
)


def test_own_limits_take_the_tighter_of_each_cap_options_included() -> None:
    own = OwnLimits(
        {
            "max_order_usd": Decimal(40),
            "min_cash_usd": Decimal(5),  # a floor below the rail's: the rail's holds
            "options.max_premium_usd": Decimal(250),  # above the ceiling: the ceiling holds
            "options.max_contracts": 2,
        }
    )
    narrowed = own.apply(CEILING)
    assert narrowed.max_order_usd == Decimal(40)
    assert narrowed.min_cash_usd == Decimal(10)
    assert narrowed.options is not None
    assert narrowed.options.max_premium_usd == Decimal(100)
    assert narrowed.options.max_contracts == 2
    assert OwnLimits().apply(CEILING) is CEILING


_NUMBERS = st.integers(min_value=1, max_value=500)


@given(st.dictionaries(st.sampled_from(sorted(DIRECTIONS)), _NUMBERS, max_size=6))
def test_own_limits_never_loosen_any_cap_of_the_rail(values: dict[str, int]) -> None:
    asked = {
        name: Decimal(value) if isinstance(cap_of(CEILING, name), Decimal) else value
        for name, value in values.items()
    }
    try:
        narrowed = OwnLimits(asked).apply(CEILING)
    except ValueError:
        return  # no valid policy (refused when set): nothing loosened either
    for name, lower_is_tighter in DIRECTIONS.items():
        ceiling, result = cap_of(CEILING, name), cap_of(narrowed, name)
        assert ceiling is not None and result is not None
        assert result <= ceiling if lower_is_tighter else result >= ceiling
