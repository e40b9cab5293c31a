"""The policy engine: the deterministic rule set between an agent and the account's money.

A TOML policy file becomes a frozen ``PolicyConfig`` (``load_policy``; fresh installs get
``write_default_policy``). An order is a ``Proposal``; its priced ``Terms`` are estimated
from a live quote at stage A (``estimate_terms``) or are the reviewed terms at stage B. The
world is an ``AccountState`` the caller assembles (every field may be missing). The pure
function ``evaluate(proposal, terms, state, config, stage)`` returns a ``Decision`` with
every failing ``ReasonCode`` in a fixed order; missing data refuses (fail closed).

Errors::

    OrdergateError
    ├── ConfigError      (ordergate.core) a bad policy file: the dotted key and the reason
    └── ProposalError    an order the path cannot name: the field and the reason

This package imports only ``ordergate.core``: it never reaches a client, the sandbox or the
gateway.
"""

from ordergate.policy._breakers import BREAKER_RULES, tripped_breakers
from ordergate.policy._compare import (
    CAP_DIRECTIONS,
    OPTION_CAP_DIRECTIONS,
    changed_keys,
    loosened_keys,
)
from ordergate.policy._config import (
    ALL_SYMBOLS,
    DEFAULTS,
    SESSION_COVERAGE,
    Approval,
    ApprovalKind,
    MarketSession,
    Mode,
    PolicyConfig,
    load_policy,
    parse_policy,
    policy_from_mapping,
)
from ordergate.policy._decision import Decision, Stage
from ordergate.policy._defaults import DEFAULT_POLICY_TOML, write_default_policy
from ordergate.policy._engine import evaluate
from ordergate.policy._errors import ProposalError
from ordergate.policy._proposal import Proposal, Terms, estimate_terms
from ordergate.policy._reasons import ReasonCode
from ordergate.policy._rules import (
    RULES,
    Exemption,
    Rule,
    check_daily_loss,
    check_drawdown,
    reduces_position,
)
from ordergate.policy._state import (
    AccountState,
    Cooldown,
    OpenOrder,
    Position,
    Quote,
    RecentOrders,
    TradingState,
)
from ordergate.policy._symbols import is_padded, is_plain_ticker, normalise_symbol
from ordergate.policy.crypto import (
    CryptoPairRules,
    CryptoPolicy,
    CryptoProposal,
    CryptoQuote,
    CryptoRoute,
    CryptoTerms,
    crypto_limits,
    estimate_crypto_terms,
    evaluate_crypto,
    parse_crypto_amount,
)

__all__ = [
    "ALL_SYMBOLS",
    "BREAKER_RULES",
    "CAP_DIRECTIONS",
    "DEFAULTS",
    "DEFAULT_POLICY_TOML",
    "OPTION_CAP_DIRECTIONS",
    "RULES",
    "SESSION_COVERAGE",
    "AccountState",
    "Approval",
    "ApprovalKind",
    "Cooldown",
    "CryptoPairRules",
    "CryptoPolicy",
    "CryptoProposal",
    "CryptoQuote",
    "CryptoRoute",
    "CryptoTerms",
    "Decision",
    "Exemption",
    "MarketSession",
    "Mode",
    "OpenOrder",
    "PolicyConfig",
    "Position",
    "Proposal",
    "ProposalError",
    "Quote",
    "ReasonCode",
    "RecentOrders",
    "Rule",
    "Stage",
    "Terms",
    "TradingState",
    "changed_keys",
    "check_daily_loss",
    "check_drawdown",
    "crypto_limits",
    "estimate_crypto_terms",
    "estimate_terms",
    "evaluate",
    "evaluate_crypto",
    "is_padded",
    "is_plain_ticker",
    "load_policy",
    "loosened_keys",
    "normalise_symbol",
    "parse_crypto_amount",
    "parse_policy",
    "policy_from_mapping",
    "reduces_position",
    "tripped_breakers",
    "write_default_policy",
]
