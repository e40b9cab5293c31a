"""``evaluate``: the pure policy engine.

Deterministic and side-effect free: no I/O, no clock (``now`` comes in the state), no
randomness, no mutation. It runs every applicable rule (see ``_rules.RULES`` for the order
and each rule's exemption for reducing orders) and reports **all** failing reason codes,
each once, in that fixed order. An order is allowed exactly when no rule fails; approval is
then required per the policy's ``approval`` setting on the terms' notional.

The same function serves both stages: stage A with ``estimate_terms`` from a live quote,
stage B (authoritative) with the terms ``review_equity_order`` returned.
"""

from __future__ import annotations

from ordergate.policy._config import PolicyConfig
from ordergate.policy._decision import Decision, Stage
from ordergate.policy._proposal import Proposal, Terms
from ordergate.policy._reasons import ReasonCode
from ordergate.policy._rules import RULES, Check, Exemption, Rule, reduces_position
from ordergate.policy._state import AccountState

__all__ = ["evaluate"]

# The three rule sequences an order can meet at each stage, precomputed; each keeps RULES'
# order. Stage B (the review) leaves out the rules that judge only the act of filing.
_OPENING: tuple[Rule, ...] = RULES
_REDUCING_EXEMPT: tuple[Rule, ...] = tuple(r for r in RULES if r.exemption is Exemption.NONE)
_REDUCING_STRICT: tuple[Rule, ...] = tuple(
    r for r in RULES if r.exemption is not Exemption.REDUCING
)


def _checks(rules: tuple[Rule, ...], *, review: bool) -> tuple[Check, ...]:
    return tuple(r.check for r in rules if not (review and r.estimate_only))


_SEQUENCES: dict[tuple[bool, int], tuple[Check, ...]] = {
    (review, kind): _checks(rules, review=review)
    for review in (False, True)
    for kind, rules in enumerate((_OPENING, _REDUCING_EXEMPT, _REDUCING_STRICT))
}


def evaluate(
    proposal: Proposal, terms: Terms, state: AccountState, config: PolicyConfig, stage: Stage
) -> Decision:
    """Decide on one order. Never raises for missing data: it refuses with a reason."""
    reduces = reduces_position(proposal, terms, state)
    kind = 0 if not reduces else 1 if config.reducing_exempt else 2
    checks = _SEQUENCES[stage is Stage.REVIEW, kind]
    reasons: list[ReasonCode] = []
    for check in checks:
        code = check(proposal, terms, state, config)
        if code is not None and code not in reasons:
            reasons.append(code)
    if reasons:
        return Decision(False, tuple(reasons), stage, False, reduces)
    return Decision(True, (), stage, config.approval.requires(terms.notional), reduces)
