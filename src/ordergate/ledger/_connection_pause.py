"""A pause of one connection: the rail-wide pause narrowed to the filings of one person.

On a hosted rail each connection is a person's own; the operator may pause any one of them
(tightening needs no one's consent) and only the person resumes it. The pause is a row of
``controls`` (``pause@<digest>``, the connection's digest as identities on the record keep
it), chained and journalled like the rail-wide one, and read by every decision in the same
statement as the rail-wide flag (``_decision``): an order of a paused connection is refused
``paused`` at stage A, and a held one is refused at its review after approval, in every
process sharing the ledger.
"""

from __future__ import annotations

__all__ = ["connection_pause_key", "digest_in"]

_PREFIX = "pause@"


def digest_in(identity: str) -> str | None:
    """The connection digest an identity names: a connection's own (``conn:DIGEST``) or a
    caller token's bound to one (``caller:NAME/PROFILE#MINT@DIGEST``); ``None`` for any other."""
    if identity.startswith("conn:"):
        return identity.removeprefix("conn:") or None
    if identity.startswith("caller:") and "@" in identity:
        return identity.rsplit("@", 1)[1] or None
    return None


def connection_pause_key(digest: str) -> str:
    """The control holding the pause of the connection whose digest is ``digest``."""
    return _PREFIX + digest
