"""The ``MCP-Protocol-Version`` header of a request after ``initialize``, checked.

The streamable-HTTP transport (2025-06-18 and later) asks the client to send, on every
request after the handshake, the version the session negotiated; a request naming a version
the server does not speak, or one that is not a version at all, "MUST" be answered 400. A
client of 2025-03-26 predates the header and sends none: then the session's negotiated
version holds, and without a session the server "SHOULD assume" 2025-03-26.

Checked against the session (``version_problem``), in order:

1. no header: accepted (the session's version, or 2025-03-26 without a session);
2. a header that is not one of the server's versions (an unknown date, a malformed value):
   refused, naming the versions the server speaks;
3. a header newer than the session's negotiated version: refused. The session never agreed
   to it, and answering as if it had would let a client use what was not negotiated;
4. a header the server speaks that is the session's or older: accepted, and the session keeps
   its negotiated version. The MCP conformance suite's SSE scenarios send 2025-03-26 on a
   session negotiated at 2025-11-25, as a client falling back to the oldest transport would;
   the TypeScript SDK's server accepts any version it speaks, and so does this one, short of
   one the session never negotiated.

Versions are dates (``YYYY-MM-DD``), so newer is later in string order.
"""

from __future__ import annotations

from ordergate.mcpserve._sessions import Session

__all__ = ["version_problem"]


def version_problem(
    header: bytes | None, *, session: Session | None, versions: tuple[str, ...]
) -> str | None:
    """Why a request's ``MCP-Protocol-Version`` ``header`` (``None``: not sent) is refused on
    ``session`` (``None``: a request without one) by a server speaking ``versions``, or
    ``None`` when it is accepted."""
    if header is None:
        return None
    version = header.decode("latin-1")
    if version not in versions:
        shown = version if version.isprintable() and len(version) <= 32 else "(malformed)"
        return f"Unsupported protocol version: {shown} (this server speaks {', '.join(versions)})"
    if session is not None and version > session.protocol_version:
        return (
            f"MCP-Protocol-Version {version} is newer than this session's negotiated "
            f"{session.protocol_version}"
        )
    return None
