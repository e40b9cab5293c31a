"""The owner's desk: every owner act, served by the running gateway at ``/owner/…``.

``OwnerDesk`` is the acts (approve, deny, pause, resume, apply a policy, list and revoke
connections, mint a caller token), each asking the owner code (``ordergate.owner``) where
the act needs it; ``owner_routes`` serves it over loopback HTTP; ``RemoteDesk`` is the
command line's side of that route, with the same methods and refusals (``DeskError``);
``probe`` tells whether a gateway answers at a URL.
"""

from ordergate.gateway.desk._desk import (
    TRADING_PERMISSIONS,
    GuardFor,
    OwnerDesk,
    policy_baseline,
    profile_trades,
)
from ordergate.gateway.desk._errors import DeskError, refusal_status
from ordergate.gateway.desk._remote import NotAGateway, RemoteDesk, probe
from ordergate.gateway.desk._routes import OWNER_PREFIX, owner_routes

__all__ = [
    "OWNER_PREFIX",
    "TRADING_PERMISSIONS",
    "DeskError",
    "GuardFor",
    "NotAGateway",
    "OwnerDesk",
    "RemoteDesk",
    "owner_routes",
    "policy_baseline",
    "probe",
    "profile_trades",
    "refusal_status",
]
