"""The shared transport's new bounds on their own: the JSON nesting bound, sessions bound to
the principal that opened them, and the Host check around a whole app."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import anyio
import pytest

from ordergate.mcpserve import MAX_JSON_DEPTH, HostCheck, HostPolicy, SessionStore, loads_json

NOW = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.req("gateway.bypass.deep-json")
def test_json_is_read_up_to_the_nesting_bound_and_refused_past_it() -> None:
    assert loads_json(_nested(MAX_JSON_DEPTH)) is not None
    assert loads_json(_nested(MAX_JSON_DEPTH).encode()) is not None
    for body in (_nested(MAX_JSON_DEPTH + 1), _nested(MAX_JSON_DEPTH + 1).encode(), _nested(10**5)):
        with pytest.raises(ValueError):
            loads_json(body)
    with pytest.raises(ValueError):
        loads_json(_nested(3), max_depth=2)


def test_brackets_inside_strings_are_not_nesting_and_amounts_stay_decimal() -> None:
    text = '{"note": "' + "[" * 500 + '", "qty": 1.50}'
    assert loads_json(text) == {"note": "[" * 500, "qty": Decimal("1.50")}
    assert loads_json(b'"' + b"{" * 100 + b'"') == "{" * 100


@pytest.mark.parametrize("body", ["NaN", "[Infinity]", '{"x": -Infinity}', "", "{", "[1,]"])
def test_what_is_not_json_is_refused(body: str) -> None:
    with pytest.raises(ValueError):
        loads_json(body)


@pytest.mark.req("gateway.bypass.session-binding")
def test_a_bound_session_is_found_and_ended_only_by_its_owner() -> None:
    store = SessionStore()
    session = store.open(protocol_version="2025-06-18", client_name="a", now=NOW)
    store.bind(session.session_id, "alice")
    store.bind(session.session_id, "mallory")  # bound once: a second bind changes nothing
    store.bind("no-such-session", "mallory")
    assert store.get(session.session_id, "alice") is session
    assert store.get(session.session_id, "mallory") is None
    assert store.get(session.session_id) is None
    assert not store.close(session.session_id, "mallory")
    assert len(store) == 1
    assert store.close(session.session_id, "alice")
    assert len(store) == 0


def test_an_unbound_session_is_served_to_requests_that_bind_none() -> None:
    store = SessionStore(limit=1)
    first = store.open(protocol_version="2025-06-18", client_name="a", now=NOW)
    assert store.get(first.session_id) is first
    assert store.get(first.session_id, "alice") is None
    second = store.open(protocol_version="2025-06-18", client_name="b", now=NOW)
    assert store.get(first.session_id) is None  # the oldest went to keep the bound
    assert store.close(second.session_id)


async def _run(app: HostCheck, scope: dict[str, Any]) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Any) -> None:
        sent.append(dict(message))

    await app(scope, receive, send)
    return sent


@pytest.mark.req("gateway.bypass.host-origin-every-route")
def test_the_host_check_refuses_twice_named_headers_and_lets_other_scopes_through() -> None:
    reached: list[str] = []

    async def inner(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope["type"])

    app = HostCheck(inner, policy=HostPolicy())

    def http(*headers: tuple[bytes, bytes]) -> dict[str, Any]:
        return {"type": "http", "headers": list(headers)}

    async def main() -> list[int]:
        refused = (
            http((b"host", b"localhost"), (b"host", b"evil.example")),
            http(),
            http((b"host", b"localhost"), (b"origin", b"http://localhost"), (b"origin", b"null")),
        )
        statuses = [(await _run(app, scope))[0]["status"] for scope in refused]
        await _run(app, {"type": "lifespan"})
        await _run(app, http((b"host", b"localhost:8787")))
        return statuses

    assert anyio.run(main) == [421, 421, 403]
    assert reached == ["lifespan", "http"]
