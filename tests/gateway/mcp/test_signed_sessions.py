"""``SignedSessions``: an MCP session id that is the session, so any replica with the same
master secret continues it, and it stays bound to the principal that opened it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from ordergate.core import Secret, SteppedClock
from ordergate.gateway._sessions import SESSION_MAX_AGE, SignedSessions, session_key

START = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
MASTER = Secret("s" * 40)


def store(clock: SteppedClock, master: Secret = MASTER) -> SignedSessions:
    return SignedSessions(session_key(master), clock=clock)


def opened(sessions: SignedSessions, owner: str = "alice") -> str:
    session = sessions.open(protocol_version="2025-06-18", client_name="agent", now=START)
    sessions.bind(session.session_id, owner)
    assert session.owner == owner
    return session.session_id


@pytest.mark.req("gateway.replicas.sessions")
def test_a_session_opened_by_one_replica_is_honoured_by_another_with_its_version() -> None:
    clock = SteppedClock(start=START)
    here, there = store(clock), store(clock)
    session_id = opened(here)
    found = there.get(session_id, "alice")
    assert found is not None
    assert (found.protocol_version, found.owner, found.created_at) == ("2025-06-18", "alice", START)
    assert there.get(session_id, "bob") is None  # another principal: unknown
    assert store(clock, Secret("t" * 40)).get(session_id, "alice") is None  # another secret


def test_an_altered_malformed_or_expired_session_id_is_unknown() -> None:
    clock = SteppedClock(start=START)
    sessions = store(clock)
    session_id = opened(sessions)
    prefix, nonce, at, version, mac = session_id.split(".")
    for forged in (
        ".".join((prefix, nonce, str(int(at) + 1), version, mac)),
        ".".join((prefix, nonce, at, "2024-11-05", mac)),
        ".".join((prefix, nonce, at, version, "0" * 32)),
        ".".join(("s0", nonce, at, version, mac)),
        ".".join((prefix, nonce, "soon", version, mac)),
        ".".join((prefix, nonce, "²", version, mac)),  # a digit to isdigit, not to int
        ".".join(
            (prefix, nonce, at.translate(str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")), version, mac)
        ),  # the same time in other digits: not the id's own text
        ".".join((prefix, nonce, " " + at, version, mac)),
        ".".join((prefix, nonce, at, "no/slash", mac)),
        session_id + ".more",
        "a-plain-random-id",
    ):
        assert sessions.get(forged, "alice") is None, forged
    behind = store(SteppedClock(start=START - SESSION_MAX_AGE - timedelta(seconds=1)))
    assert behind.get(session_id, "alice") is None  # a replica whose clock is far behind
    clock.advance(SESSION_MAX_AGE + timedelta(seconds=1))
    assert sessions.get(session_id, "alice") is None


def test_an_unbound_session_is_honoured_for_no_principal_only() -> None:
    clock = SteppedClock(start=START)
    sessions = store(clock)
    session = sessions.open(protocol_version="2025-11-25", client_name="", now=START)
    assert len(sessions) == 1  # opened, waiting to be bound
    assert sessions.get(session.session_id) is not None
    assert sessions.get(session.session_id, "alice") is None
    sessions.bind("an-id-never-opened", "alice")  # nothing to bind: nothing happens
    sessions.bind(session.session_id, "alice")
    sessions.bind(session.session_id, "bob")  # bound already: kept as it was
    assert session.owner == "alice"


def test_a_session_ended_here_is_unknown_here_and_only_its_owner_can_end_it() -> None:
    clock = SteppedClock(start=START)
    sessions = store(clock)
    session_id = opened(sessions)
    assert not sessions.close(session_id, "bob")
    assert sessions.close(session_id, "alice")
    assert sessions.get(session_id, "alice") is None
    assert not sessions.close(session_id, "alice")


def test_the_sessions_waiting_to_be_bound_and_the_ended_ones_are_bounded() -> None:
    clock = SteppedClock(start=START)
    sessions = store(clock)
    for _ in range(1100):
        sessions.open(protocol_version="2025-06-18", client_name="", now=START)
    assert len(sessions) == 1024
    ended = [opened(sessions) for _ in range(10_001)]
    for session_id in ended:
        assert sessions.close(session_id, "alice")
    assert sessions.get(ended[0], "alice") is not None  # forgotten as ended, still owned
    assert sessions.get(ended[-1], "alice") is None


def test_a_short_key_or_an_odd_protocol_version_is_refused() -> None:
    clock = SteppedClock(start=START)
    with pytest.raises(ValueError, match="32 bytes"):
        SignedSessions(b"short", clock=clock)
    with pytest.raises(ValueError, match="protocol version"):
        store(clock).open(protocol_version="2025.06.18", client_name="", now=START)


def test_a_clients_declared_url_elicitation_travels_in_the_id_under_its_mac() -> None:
    clock = SteppedClock(start=START)
    here, there = store(clock), store(clock)
    session = here.open(
        protocol_version="2025-11-25", client_name="agent", now=START, url_elicitation=True
    )
    here.bind(session.session_id, "alice")
    found = there.get(session.session_id, "alice")
    assert found is not None and found.url_elicitation is True
    plain = opened(here)
    unflagged = there.get(plain, "alice")
    assert unflagged is not None and unflagged.url_elicitation is False
    _, nonce, rest = session.session_id.split(".", 2)
    assert there.get(f"s1.{nonce[:-1]}.{rest}", "alice") is None  # the flag is under the MAC
