"""The owner's desk: every owner act, served by the running gateway on its owner channel.

``OwnerDesk`` is the acts (approve, deny, pause, resume, apply a policy, list and revoke
connections, mint a caller token); an act that may need the owner code is prepared first (its
summary and digest, a ``PreparedAct``) and authorised once, the code spent on that digest
only. ``channel_app`` serves the desk on a Unix socket (``bind_owner_socket`` at
``owner_socket_path``) to the peers its credentials admit; ``RemoteDesk`` is the command
line's side of it, with the same methods and refusals (``DeskError``), checking the socket is
the real gateway's (``open_channel``) before it sends anything.
"""

from ordergate.gateway.desk._channel import (
    ENV_OWNER_SOCKET,
    PEER_LIMIT,
    ChannelServer,
    bind_owner_socket,
    channel_app,
    owner_socket_path,
)
from ordergate.gateway.desk._connections import client_name_of
from ordergate.gateway.desk._desk import OwnerDesk, profile_trades
from ordergate.gateway.desk._errors import DeskError, refusal_status
from ordergate.gateway.desk._held import GuardFor
from ordergate.gateway.desk._plans import TRADING_PERMISSIONS
from ordergate.gateway.desk._policy_acts import policy_baseline
from ordergate.gateway.desk._remote import ChannelRefused, NoChannel, RemoteDesk, open_channel
from ordergate.gateway.desk._routes import OWNER_PREFIX, owner_routes
from ordergate.gateway.desk._wiring import owner_desk

__all__ = [
    "ENV_OWNER_SOCKET",
    "OWNER_PREFIX",
    "PEER_LIMIT",
    "TRADING_PERMISSIONS",
    "ChannelRefused",
    "ChannelServer",
    "DeskError",
    "GuardFor",
    "NoChannel",
    "OwnerDesk",
    "RemoteDesk",
    "bind_owner_socket",
    "channel_app",
    "client_name_of",
    "open_channel",
    "owner_desk",
    "owner_routes",
    "owner_socket_path",
    "policy_baseline",
    "profile_trades",
    "refusal_status",
]
