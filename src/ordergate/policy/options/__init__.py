"""The options wall's policy: option orders as values, their strategy and their checks.

An option order is an ``OptionProposal`` of one to ``MAX_LEGS`` ``OptionLeg`` s, each naming
its ``OptionContract``. Stage A prices it from each leg's ``OptionQuote``
(``estimate_option_terms``); stage B on the ``OptionTerms`` the venue's review returned.

Errors: ``ProposalError`` (``ordergate.policy``) for an order the path cannot name, with a
code of its own for the shapes an agent may try (``option_legs_mixed_underlyings``,
``option_legs_too_many``, ``option_legs_duplicate``).

Pure and deterministic like the rest of ``ordergate.policy``: no I/O, no clock.
"""

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

__all__ = [
    "MAX_LEGS",
    "MULTIPLIER",
    "OptionContract",
    "OptionLeg",
    "OptionProposal",
    "OptionQuote",
    "OptionTerms",
    "estimate_option_terms",
]
