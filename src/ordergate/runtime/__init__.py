"""Running ordergate from its configuration: the settings every entry point shares, the
upstream (Robinhood, a URL, or an embedded sandbox), and a guard assembled from them.

``ordergate order``, ``approve``, ``reconcile`` and ``ordergate serve`` all go through
``open_guard(settings)``, so the command line and the gateway run the same wall on the same
configuration: ``ORDERGATE_HOME``, ``--policy``, ``--db``, ``--upstream URL | --sandbox``.
``check_home(settings)`` says what would let another OS user read the gateway's secrets or
change its policy; ``ordergate serve`` refuses to start until it says nothing.
"""

from ordergate.runtime._home import check_home
from ordergate.runtime._integrity import CHECKPOINT_FILE, verify_at_start
from ordergate.runtime._policy import PolicyNotApplied, policy_in_force
from ordergate.runtime._settings import Settings, UpstreamChoice
from ordergate.runtime._upstream import (
    EMBEDDED_ACCOUNT,
    EMBEDDED_RHS_ACCOUNT,
    Upstream,
    embedded_venue,
    open_upstream,
)
from ordergate.runtime._webhook import WebhookNotifier, approval_announcement
from ordergate.runtime._wiring import Running, guard_on, open_guard

__all__ = [
    "CHECKPOINT_FILE",
    "EMBEDDED_ACCOUNT",
    "EMBEDDED_RHS_ACCOUNT",
    "PolicyNotApplied",
    "Running",
    "Settings",
    "Upstream",
    "UpstreamChoice",
    "WebhookNotifier",
    "approval_announcement",
    "check_home",
    "embedded_venue",
    "guard_on",
    "open_guard",
    "open_upstream",
    "policy_in_force",
    "verify_at_start",
]
