"""The kinds of decisions-journal entry an agent writes."""

__all__ = ["DECISION", "DIGEST", "DROPPED", "ORDER", "RECONCILE"]

DECISION = "agent.decision"
"""One per tick: the plan (a hold included), the agent's state and the snapshot digest."""
ORDER = "agent.order"
"""One per intent submitted, against its filing."""
DROPPED = "agent.dropped"
"""A proposal not submitted, and why (malformed model output, reducing, no cash, its
account's turn not come within its bound)."""
RECONCILE = "agent.reconcile"
"""The book and the broker's disagreed (buying halted), or a split re-based the book."""
DIGEST = "agent.digest"
"""A daily digest sent: its market day (``detail.day``) and what it counted."""
