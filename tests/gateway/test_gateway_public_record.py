"""``serve --public-record``: the hashed track records at /record, and nothing else; the
grader beside the reconciler in a serving gateway."""

from __future__ import annotations

from pathlib import Path

import anyio
import httpx2
import pytest
from gateway_testkit import sandbox_gateway
from record_testkit import MONDAY_CLOSE, desk

from ordergate.core import Side, SteppedClock
from ordergate.gateway._config import GatewayConfig
from ordergate.gateway._grading import serving_grader
from ordergate.gateway._serve import Serving
from ordergate.record import public_id

pytestmark = pytest.mark.req("record.public.hashed")


async def _graded(tmp_path: Path, ledger_url: str) -> list[str]:
    async with desk(tmp_path, ledger_url=ledger_url) as d:
        filings = [
            await d.fill("AAPL", Side.BUY, identity="agent-a"),
            await d.fill("MSFT", Side.BUY, identity="agent-b"),
        ]
        d.step_to(MONDAY_CLOSE)
        assert (await d.grader().run_once()).graded == 2
        return filings


def test_the_public_record_shows_hashed_identities_counts_grades_and_ranks_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = sandbox_gateway(
        tmp_path, monkeypatch, config=GatewayConfig(port=0, public_record=True), grade_every=300.0
    )
    ledger_url = f"sqlite:///{tmp_path / 'home' / 'ledger.db'}"
    filings = anyio.run(_graded, tmp_path, ledger_url)
    with server as url, httpx2.Client(timeout=30.0) as http:
        page = http.get(f"{url}/record")
        data = http.get(f"{url}/record.json")
        posted = http.post(f"{url}/record")
    assert page.status_code == 200 and data.status_code == 200
    assert posted.status_code == 405
    assert page.headers["content-security-policy"] == "default-src 'none'"
    assert page.headers["cache-control"] == "no-store"
    body = data.json()
    assert body["ranked_after"] == 30
    assert {r["id"] for r in body["records"]} == {public_id("agent-a"), public_id("agent-b")}
    for record in body["records"]:
        assert set(record) == {
            "id", "graded", "mean_excess_bps", "median_excess_bps", "hit_rate", "rank",
            "ranked_after",
        }  # fmt: skip
        assert record["graded"] == 1 and record["rank"] is None
    for text in (page.text, data.text):
        for secret in ("agent-a", "agent-b", "AAPL", "MSFT", *filings):
            assert secret not in text
    assert public_id("agent-a") in page.text and "<td>1</td>" in page.text


def test_without_the_flag_there_is_no_record_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with sandbox_gateway(tmp_path, monkeypatch) as url, httpx2.Client(timeout=30.0) as http:
        assert http.get(f"{url}/record").status_code == 404
        assert http.get(f"{url}/record.json").status_code == 404


def test_a_sealed_gateway_has_no_background_grader() -> None:
    serving = Serving((), None, sealed=True, profiles=None)  # type: ignore[arg-type]
    assert serving_grader(serving, SteppedClock(start=MONDAY_CLOSE)) is None


def test_an_empty_record_page_says_nothing_is_graded_yet() -> None:
    from ordergate.gateway._public_record import render

    page = render({"records": [], "ranked_after": 30})
    assert "No placement has been graded yet." in page and "<tbody></tbody>" in page
