"""``/healthz`` and ``/readyz`` (issue 13 §6), over real loopback HTTP.

Both answer without a token and say nothing but their status: no version, no count, no name
of what failed. ``/readyz`` is 503 when the ledger takes no write or the upstream's tool list
cannot be read; a tool list read counts for a minute, a failure not at all. Host and Origin
are checked on them as on every route.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
from gateway_testkit import OPEN, sandbox_gateway
from pg_testkit import database
from sqlalchemy import event, text
from starlette.applications import Starlette

from ordergate._serving import BackgroundServer, bind_socket
from ordergate.core import SteppedClock
from ordergate.gateway._health import Readiness, health_routes, ledger_writable
from ordergate.ledger import open_ledger


@pytest.mark.req("gateway.health")
def test_healthz_and_readyz_answer_without_a_token_and_say_only_their_status(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with sandbox_gateway(tmp_path, monkeypatch) as url, httpx2.Client(timeout=30) as http:
        alive = http.get(url + "/healthz")
        ready = http.get(url + "/readyz")
        again = http.get(url + "/readyz")
        head = http.head(url + "/healthz")
        posted = http.post(url + "/healthz")
    assert (alive.status_code, alive.json()) == (200, {"status": "ok"})
    assert (ready.status_code, ready.json()) == (200, {"status": "ready"})
    assert again.json() == {"status": "ready"}
    assert head.status_code == 200 and posted.status_code == 405
    for response in (alive, ready):
        assert response.headers["cache-control"] == "no-store"
        assert "www-authenticate" not in response.headers
        assert set(response.json()) == {"status"}


@pytest.mark.req("gateway.health")
@pytest.mark.parametrize("path", ["/healthz", "/readyz"])
def test_host_and_origin_are_checked_on_the_health_routes_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    with sandbox_gateway(tmp_path, monkeypatch) as url, httpx2.Client(timeout=30) as http:
        rebound = http.get(url + path, headers={"host": "attacker.example"})
        foreign = http.get(url + path, headers={"origin": "https://attacker.example"})
    assert rebound.status_code == 421
    assert foreign.status_code == 403


@contextmanager
def served(readiness: Readiness) -> Iterator[str]:
    sock = bind_socket("127.0.0.1", 0)
    with BackgroundServer(Starlette(routes=health_routes(readiness)), sock):
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"


class Upstream:
    """A tool list read that fails while ``failing``; counts the reads."""

    def __init__(self) -> None:
        self.failing = False
        self.reads = 0

    async def tools(self) -> list[dict[str, Any]]:
        self.reads += 1
        if self.failing:
            raise ConnectionError("upstream down")
        return []


def _fine() -> None:
    return None


@pytest.mark.req("gateway.health")
def test_readyz_reads_the_tool_list_once_a_minute_and_a_failure_at_once() -> None:
    upstream = Upstream()
    now = [0.0]
    reads: Callable[[], Awaitable[Any]] = upstream.tools
    readiness = Readiness(ledger=_fine, upstream=reads, monotonic=lambda: now[0])
    with served(readiness) as url, httpx2.Client(timeout=30) as http:
        assert [http.get(url + "/readyz").status_code for _ in range(3)] == [200, 200, 200]
        assert upstream.reads == 1
        upstream.failing = True
        assert http.get(url + "/readyz").status_code == 200  # the read still counts
        now[0] = 61.0
        down = http.get(url + "/readyz")
        upstream.failing = False
        back = http.get(url + "/readyz")
        alive = http.get(url + "/healthz")
    assert (down.status_code, down.json()) == (503, {"status": "not ready"})
    assert back.status_code == 200 and upstream.reads == 3
    assert alive.status_code == 200


@pytest.mark.req("gateway.health")
def test_readyz_is_503_when_the_ledger_takes_no_write(tmp_path: Path) -> None:
    with open_ledger(
        f"sqlite:///{tmp_path / 'ledger.db'}", clock=SteppedClock(start=OPEN)
    ) as ledger:
        engine = ledger.engine
        ledger_writable(engine)  # a ledger that takes writes: nothing raised, nothing changed
        engine.dispose()

        @event.listens_for(engine, "connect")
        def read_only(connection: Any, _record: object) -> None:
            connection.execute("PRAGMA query_only = ON")

        readiness = Readiness(ledger=lambda: ledger_writable(engine), upstream=None)
        with served(readiness) as url, httpx2.Client(timeout=30) as http:
            refused = http.get(url + "/readyz")
            alive = http.get(url + "/healthz")
    assert (refused.status_code, refused.json()) == (503, {"status": "not ready"})
    assert alive.status_code == 200


@pytest.mark.req("gateway.health")
def test_without_an_upstream_session_to_read_with_readyz_checks_the_ledger_alone() -> None:
    readiness = Readiness(ledger=_fine, upstream=None)
    with served(readiness) as url, httpx2.Client(timeout=30) as http:
        ready = http.get(url + "/readyz")
    assert (ready.status_code, ready.json()) == (200, {"status": "ready"})


@pytest.mark.req("gateway.health")
@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_the_ledger_write_probe_passes_on_a_ledger_and_fails_read_only(
    kind: str, tmp_path: Path
) -> None:
    with (
        database(kind, tmp_path) as url,
        open_ledger(url, clock=SteppedClock(start=OPEN)) as ledger,
    ):
        engine = ledger.engine
        ledger_writable(engine)
        if kind == "sqlite":

            @event.listens_for(engine, "connect")
            def read_only(connection: Any, _record: object) -> None:
                connection.execute("PRAGMA query_only = ON")

        else:  # the database itself turned read-only, as a standby or a full disk leaves it
            with engine.connect() as connection:
                name = connection.execute(text("SELECT current_database()")).scalar_one()
                connection.execute(
                    text(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
                )
                connection.commit()
        engine.dispose()
        with pytest.raises(Exception, match=r"(?i)read.?only"):
            ledger_writable(engine)
