"""Execution: the one order chokepoint (``Guard``), arming, the reconciler.

::

    async with Guard.open(policy=policy, ledger=ledger, venue=venue,
                          account=account_number) as guard:
        outcome = await guard.submit(proposal, identity="my-agent")

``Guard`` runs the order path of docs/architecture.md ("The order path": file + stage A +
reserve → approval → review + stage B → place → unanswered handling) over a ``Venue``
(``ordergate.venues``: the port; ``ordergate.venues.paper``'s ``PaperVenue`` by default,
``ordergate.venues.robinhood``'s ``RobinhoodVenue`` only when ``arm`` says live), through
its equity lane and never asking which venue it is; ``Guard.submit_crypto`` runs a crypto
order the same way on its crypto lane (``CRYPTO_KIND`` filings). The ``Reconciler`` follows
every order to its end and converges the spend to the fills.
"""

from ordergate.execution._arming import ORDER_PATH_TOOLS, Arming, arm, pinned_contract
from ordergate.execution._breakers import TradingRead, note_trip, trading_read
from ordergate.execution._crypto import (
    CRYPTO_NOT_OFFERED,
    CRYPTO_NOT_ON_PAPER,
    CryptoNotOffered,
    crypto_hold_for,
)
from ordergate.execution._crypto_terms import (
    CRYPTO_KIND,
    crypto_filing_terms,
    crypto_proposal_of,
    crypto_ticket_of,
)
from ordergate.execution._endings import deny_approval, end_filing
from ordergate.execution._exercise import CANCEL_EXERCISE, EXERCISE, EXERCISE_KIND
from ordergate.execution._guard import BREAKER, ApprovalNotifier, Guard
from ordergate.execution._keyed import REF_ID_REUSED
from ordergate.execution._kill_switch import (
    BROKER_REFUSED_CANCEL,
    NO_ANSWER,
    NOT_AT_BROKER,
    CancelReport,
)
from ordergate.execution._option_terms import OPTION_KIND, proposal_of_option
from ordergate.execution._options import OPTION_REPLACE_NOT_CANCELLED
from ordergate.execution._outcome import (
    APPROVAL_DECIDED,
    APPROVAL_DENIED,
    APPROVAL_EXPIRED,
    APPROVAL_TERMS_ALTERED,
    BROKER_CHECKS_FAILED,
    BROKER_REFUSED,
    REVIEW_UNANSWERED,
    Outcome,
)
from ordergate.execution._reconciler import DEFAULT_GRACE, Reconciler, ReconcileReport
from ordergate.execution._sessions import calendar_session, paper_session
from ordergate.execution._status import GuardStatus, read_status
from ordergate.execution._terms import filing_terms, proposal_of, terms_sha256, ticket_of

__all__ = [
    "APPROVAL_DECIDED",
    "APPROVAL_DENIED",
    "APPROVAL_EXPIRED",
    "APPROVAL_TERMS_ALTERED",
    "BREAKER",
    "BROKER_CHECKS_FAILED",
    "BROKER_REFUSED",
    "BROKER_REFUSED_CANCEL",
    "CANCEL_EXERCISE",
    "CRYPTO_KIND",
    "CRYPTO_NOT_OFFERED",
    "CRYPTO_NOT_ON_PAPER",
    "DEFAULT_GRACE",
    "EXERCISE",
    "EXERCISE_KIND",
    "NOT_AT_BROKER",
    "NO_ANSWER",
    "OPTION_KIND",
    "OPTION_REPLACE_NOT_CANCELLED",
    "ORDER_PATH_TOOLS",
    "REF_ID_REUSED",
    "REVIEW_UNANSWERED",
    "ApprovalNotifier",
    "Arming",
    "CancelReport",
    "CryptoNotOffered",
    "Guard",
    "GuardStatus",
    "Outcome",
    "ReconcileReport",
    "Reconciler",
    "TradingRead",
    "arm",
    "calendar_session",
    "crypto_filing_terms",
    "crypto_hold_for",
    "crypto_proposal_of",
    "crypto_ticket_of",
    "deny_approval",
    "end_filing",
    "filing_terms",
    "note_trip",
    "paper_session",
    "pinned_contract",
    "proposal_of",
    "proposal_of_option",
    "read_status",
    "terms_sha256",
    "ticket_of",
    "trading_read",
]
