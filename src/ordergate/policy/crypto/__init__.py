"""Crypto orders as the policy names them: ``CryptoProposal`` (a pair, a side, units XOR
dollars, type, prices, time in force, account), its priced ``CryptoTerms``, a pair's best
bid and ask (``CryptoQuote``) and what the venue takes for a pair (``CryptoPairRules``).

``parse_crypto_amount`` reads an amount from the wire (plain decimal text only: scientific
notation is refused); ``estimate_crypto_terms`` prices a proposal at stage A on the far side
of the quote, so a size given in units means dollars before any cap weighs it.
``[crypto]`` in the policy file is a ``CryptoPolicy``; ``evaluate_crypto`` decides on a
crypto order with the equity engine's shared checks and the rules of its own
(``CRYPTO_RULES``).
"""

from ordergate.policy._crypto_config import CRYPTO_KEYS, CryptoPolicy, CryptoRoute
from ordergate.policy.crypto._amounts import MAX_PLACES, decimal_places, parse_crypto_amount
from ordergate.policy.crypto._engine import (
    CRYPTO_RULES,
    CryptoRule,
    crypto_limits,
    evaluate_crypto,
    reduces_holding,
)
from ordergate.policy.crypto._proposal import CryptoProposal, CryptoTerms, estimate_crypto_terms
from ordergate.policy.crypto._quote import CryptoPairRules, CryptoQuote

__all__ = [
    "CRYPTO_KEYS",
    "CRYPTO_RULES",
    "MAX_PLACES",
    "CryptoPairRules",
    "CryptoPolicy",
    "CryptoProposal",
    "CryptoQuote",
    "CryptoRoute",
    "CryptoRule",
    "CryptoTerms",
    "crypto_limits",
    "decimal_places",
    "estimate_crypto_terms",
    "evaluate_crypto",
    "parse_crypto_amount",
    "reduces_holding",
]
