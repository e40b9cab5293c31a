"""The owner channel's door (``PeerCheck``): who it serves by peer credentials, and each peer
user's rate class, in process over ASGI (the peers of other OS users: tests/deploy)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ordergate.core import RealtimeClock
from ordergate.gateway.desk._channel import PeerCheck
from ordergate.ledger import Ledger, open_ledger


class _Desk:
    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger


async def _ok(request: Request) -> JSONResponse:
    return JSONResponse({"ok": True})


def _answers(door: PeerCheck, uid: int, count: int) -> list[tuple[int, Any]]:
    async def ask() -> list[tuple[int, Any]]:
        transport = httpx2.ASGITransport(app=door, client=("uid", uid))
        async with httpx2.AsyncClient(transport=transport, base_url="http://owner") as http:
            answers = [await http.get("/owner/status") for _ in range(count)]
        return [(a.status_code, a.json().get("error", {}).get("code")) for a in answers]

    return anyio.run(ask)


def _door(tmp_path: Path, ledger: Ledger, *, limit: int = 100) -> PeerCheck:
    directory = tmp_path / "run"
    directory.mkdir(mode=0o700)
    app = Starlette(routes=[Route("/owner/status", _ok)])
    return PeerCheck(app, directory=directory, desk=_Desk(ledger), limit=limit)  # type: ignore[arg-type]


@pytest.mark.req("owner.channel.peer-credentials")
def test_the_channel_serves_its_own_user_and_refuses_and_journals_a_peer_it_cannot_name(
    tmp_path: Path,
) -> None:
    with open_ledger(f"sqlite:///{tmp_path / 'ledger.db'}", clock=RealtimeClock()) as ledger:
        door = _door(tmp_path, ledger)
        assert _answers(door, os.geteuid(), 1) == [(200, None)]
        assert _answers(door, -1, 1) == [(403, "peer_refused")]  # credentials unreadable
        # A user neither this one nor root, with the directory closed to its group.
        assert _answers(door, 65534, 1) == [(403, "peer_refused")]
        refused = [e.detail for e in ledger.journal.entries() if e.kind == "owner_peer_refused"]
    assert [entry["uid"] for entry in refused] == [-1, 65534]


def test_each_peer_user_has_its_own_rate_class_on_the_channel(tmp_path: Path) -> None:
    with open_ledger(f"sqlite:///{tmp_path / 'ledger.db'}", clock=RealtimeClock()) as ledger:
        door = _door(tmp_path, ledger, limit=2)
        flood = _answers(door, 65534, 4)
        assert flood[-1] == (429, "rate_limited")
        assert _answers(door, os.geteuid(), 2) == [(200, None), (200, None)]
