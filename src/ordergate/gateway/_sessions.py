"""``SignedSessions``: MCP sessions that carry what they need, so any replica can continue one.

The transport's ``SessionStore`` keeps sessions in one process's memory; behind a load
balancer the next request of a session may reach another replica, which would answer 404.
Here the session id *is* the session: ``s1.<nonce>.<opened>.<protocol version>.<mac>``
(the nonce ends in ``u`` when the client declared URL elicitation),
the MAC (HMAC-SHA256, 128 bits) over those fields and the key of the principal the session
is bound to, under a key derived from ``ORDERGATE_MASTER_SECRET`` (every replica has the
same one). So:

- any replica with the secret honours the session, with its negotiated protocol version;
- another principal naming it gets 404, as before: the MAC is checked under *its* key;
- a session id nobody issued, altered, or older than ``max_age`` is unknown;
- ``DELETE`` ends it on the replica that served the ``DELETE`` (a bounded set of ended ids);
  another replica may still honour it, for the same principal only, until ``max_age``. The
  session grants nothing the principal's token does not (the token is checked on every
  request): ending one is the client's courtesy, never access control.

Without a master secret the gateway keeps the in-memory store (one process).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections import OrderedDict
from datetime import UTC, datetime, timedelta

from ordergate.core import Clock, Secret
from ordergate.mcpserve import Session, SessionStore

__all__ = ["SESSION_MAX_AGE", "SignedSessions", "session_key"]

SESSION_MAX_AGE = timedelta(hours=24)
_PREFIX = "s1"
_PENDING = 1024
_ENDED = 10_000
_VERSION = re.compile(r"[0-9A-Za-z-]{1,32}")
_URL_ELICITATION = "u"


def session_key(master: Secret) -> bytes:
    """The session-signing key every replica derives from the same master secret."""
    return hmac.new(
        master.reveal().encode("utf-8"), b"ordergate/mcp-session/v1", hashlib.sha256
    ).digest()


class SignedSessions(SessionStore):
    """A ``SessionStore`` whose ids carry the session (see the module docstring)."""

    def __init__(self, key: bytes, *, clock: Clock, max_age: timedelta = SESSION_MAX_AGE) -> None:
        super().__init__()
        if len(key) < 32:
            raise ValueError("a session key has at least 32 bytes")
        self._key = key
        self._clock = clock
        self._max_age = max_age
        self._pending: OrderedDict[str, Session] = OrderedDict()
        self._ended: OrderedDict[str, None] = OrderedDict()

    def _mac(self, nonce: str, opened: int, version: str, owner: str | None) -> str:
        message = "|".join((_PREFIX, nonce, str(opened), version, owner or "")).encode("utf-8")
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()[:32]

    def _id(self, nonce: str, opened: int, version: str, owner: str | None) -> str:
        return ".".join(
            (_PREFIX, nonce, str(opened), version, self._mac(nonce, opened, version, owner))
        )

    def open(
        self,
        *,
        protocol_version: str,
        client_name: str,
        now: datetime,
        url_elicitation: bool = False,
    ) -> Session:
        if not _VERSION.fullmatch(protocol_version):
            raise ValueError("a protocol version is letters, digits and dashes")
        # A client that declared URL elicitation: ``u`` after the nonce (under the MAC).
        nonce = secrets.token_hex(16) + (_URL_ELICITATION if url_elicitation else "")
        opened = int(now.timestamp())
        session = Session(
            self._id(nonce, opened, protocol_version, None),
            protocol_version,
            client_name,
            now,
            url_elicitation=url_elicitation,
        )
        self._pending[session.session_id] = session
        while len(self._pending) > _PENDING:
            self._pending.popitem(last=False)
        return session

    def bind(self, session_id: str, owner: str) -> None:
        """Bind a session just opened here to ``owner``: its id is re-signed for ``owner``
        (the ``Session`` the transport holds gets the new id)."""
        session = self._pending.pop(session_id, None)
        if session is None or session.owner is not None:
            return
        _, nonce, opened, version, _ = session_id.split(".")
        session.owner = owner
        session.session_id = self._id(nonce, int(opened), version, owner)

    def get(self, session_id: str, owner: str | None = None) -> Session | None:
        parts = session_id.split(".")
        if len(parts) != 5 or parts[0] != _PREFIX or session_id in self._ended:
            return None
        _, nonce, opened_text, version, mac = parts
        # ASCII digits only: ``isdigit`` takes "²" (which ``int`` refuses: a 500) and other
        # scripts' digits (which ``int`` reads: another spelling of the id's own time).
        if not (opened_text.isascii() and opened_text.isdigit()) or not _VERSION.fullmatch(version):
            return None
        opened = int(opened_text)
        if not hmac.compare_digest(mac, self._mac(nonce, opened, version, owner)):
            return None
        created = datetime.fromtimestamp(opened, UTC)
        age = self._clock.now() - created
        if age > self._max_age or age < -self._max_age:
            return None
        url_elicitation = nonce.endswith(_URL_ELICITATION)
        return Session(session_id, version, "", created, owner, url_elicitation=url_elicitation)

    def close(self, session_id: str, owner: str | None = None) -> bool:
        if self.get(session_id, owner) is None:
            return False
        self._pending.pop(session_id, None)
        self._ended[session_id] = None
        while len(self._ended) > _ENDED:
            self._ended.popitem(last=False)
        return True

    def __len__(self) -> int:
        return len(self._pending)
