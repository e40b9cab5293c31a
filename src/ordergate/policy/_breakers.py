"""The breakers on their own: the drawdown and daily-loss rules of ``RULES`` run on equity
and its marks with no order in hand, for whatever must know whether they have tripped before
an order is proposed (``ordergate status``, the console, an agent choosing what to plan).

The checks are the rule table's own, so no caller can disagree with a decision about when a
breaker trips; missing data comes back as its ``missing_data:…`` code (fail closed).
"""

from __future__ import annotations

from ordergate.policy._config import PolicyConfig
from ordergate.policy._reasons import ReasonCode
from ordergate.policy._rules import RULES
from ordergate.policy._state import AccountState

__all__ = ["BREAKER_RULES", "tripped_breakers"]

BREAKER_RULES = ("drawdown", "daily_loss")
"""The names in ``RULES`` of the checks that judge the account, not the order."""

_BREAKERS = tuple(rule for rule in RULES if rule.name in BREAKER_RULES)


def tripped_breakers(state: AccountState, config: PolicyConfig) -> tuple[ReasonCode, ...]:
    """The breaker codes failing at ``state``'s equity, high-water mark and session-start
    equity, in ``RULES`` order (empty: every breaker clear). The breaker checks read only the
    account, so no proposal or terms are given."""
    codes: list[ReasonCode] = []
    for rule in _BREAKERS:
        code = rule.check(None, None, state, config)  # type: ignore[arg-type]
        if code is not None:
            codes.append(code)
    return tuple(codes)
