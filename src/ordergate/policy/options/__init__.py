"""The options wall's policy: option orders as values, their strategy and their checks.

An option order is an ``OptionProposal`` of one to ``MAX_LEGS`` ``OptionLeg`` s, each naming
its ``OptionContract``. ``recognise`` names its ``Strategy`` from the legs and the account's
``OptionHoldings`` (never from the agent's word); ``max_loss`` is the most it can lose at
expiry. ``evaluate_options`` decides on it against the policy's ``[options]``
(``OptionsPolicy``) at stage A, on terms estimated from each leg's ``OptionQuote``
(``estimate_option_terms``), and at stage B on the ``OptionTerms`` the venue's review
returned; its ``OptionDecision`` is a ``Decision`` that also carries the strategy, the max
loss and the premium.

Errors: ``ProposalError`` (``ordergate.policy``) for an order the path cannot name, with a
code of its own for the shapes an agent may try (``option_legs_mixed_underlyings``,
``option_legs_too_many``, ``option_legs_duplicate``).

Pure and deterministic like the rest of ``ordergate.policy``: no I/O; ``now`` comes in the
state.
"""

from ordergate.policy._options_config import OptionsPolicy, Strategy
from ordergate.policy.options._engine import OptionDecision, OptionState, evaluate_options
from ordergate.policy.options._proposal import (
    MAX_LEGS,
    MULTIPLIER,
    OptionContract,
    OptionLeg,
    OptionProposal,
    OptionQuote,
    OptionTerms,
    estimate_option_terms,
)
from ordergate.policy.options._strategy import HeldOption, OptionHoldings, max_loss, recognise

__all__ = [
    "MAX_LEGS",
    "MULTIPLIER",
    "HeldOption",
    "OptionContract",
    "OptionDecision",
    "OptionHoldings",
    "OptionLeg",
    "OptionProposal",
    "OptionQuote",
    "OptionState",
    "OptionTerms",
    "OptionsPolicy",
    "Strategy",
    "estimate_option_terms",
    "evaluate_options",
    "max_loss",
    "recognise",
]
