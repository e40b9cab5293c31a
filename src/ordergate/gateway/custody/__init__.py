"""Sealed custody: each connection signs in at the upstream and keeps that session, sealed.

The gateway is a public OAuth client of the upstream (``_authority``); after the consent page
the person signs in there and the callback checks the browser's bind before it exchanges
anything (``_signin``, ``_held``); the session is sealed on the connection (``_vault``, the
only place a sealed session is opened) and each connection's calls and orders go out on its
own session through its own guard (``_backend``). On a hosted rail the person enrols a code
of their own (``_person``) and may register a passkey (``_person_passkeys``) for the
connection on the same page (``_person_page``). Each session is under a data key of its
own, wrapped by the key provider's key-encryption key (``ordergate.gateway.keys``);
``_rotation`` re-wraps them all under a new one, and ``_shredding`` rotates past an erased
connection's KEK so that no backup reopens it. A new connection starts in approval mode
(``_approval_mode``: each order held for its person, until their own code turns it off on
their routes, ``_person_routes``), and trades under limits of its own that its person sets up
to the operator's ceiling (``_person_limits``).
"""

from ordergate.gateway.custody._approval_mode import (
    ApprovalModeRefused,
    ApprovalModes,
    held_policy,
)
from ordergate.gateway.custody._authority import UpstreamAuthority
from ordergate.gateway.custody._backend import SealedBackend
from ordergate.gateway.custody._person_limits import (
    LIMITS_SET,
    ConnectionLimits,
    LimitRefused,
    OwnLimits,
    overrides_of,
)
from ordergate.gateway.custody._person_passkeys import PersonPasskeys
from ordergate.gateway.custody._person_routes import person_routes
from ordergate.gateway.custody._rotation import Progress, Rotation, rotate_keys
from ordergate.gateway.custody._shredding import Shredder, shred_erased
from ordergate.gateway.custody._signin import BIND_COOKIE, NO_MASTER_SECRET, UpstreamSignIn
from ordergate.gateway.custody._vault import SESSION_ENDED, NoVault, SessionSource, Vault

__all__ = [
    "BIND_COOKIE",
    "LIMITS_SET",
    "NO_MASTER_SECRET",
    "SESSION_ENDED",
    "ApprovalModeRefused",
    "ApprovalModes",
    "ConnectionLimits",
    "LimitRefused",
    "NoVault",
    "OwnLimits",
    "PersonPasskeys",
    "Progress",
    "Rotation",
    "SealedBackend",
    "SessionSource",
    "Shredder",
    "UpstreamAuthority",
    "UpstreamSignIn",
    "Vault",
    "held_policy",
    "overrides_of",
    "person_routes",
    "rotate_keys",
    "shred_erased",
]
