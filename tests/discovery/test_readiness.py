"""Crypto readiness: what resolves now, against what resolved at the last run."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from capability_testkit import CRYPTO_TOOL_NAMES, FOREIGN, sandbox_tools, without

from ordergate.core import ConfigError, SteppedClock
from ordergate.discovery._readiness import (
    EXIT_APPEARED,
    EXIT_DISAPPEARED,
    EXIT_UNCHANGED,
    Readiness,
    assess,
    check,
    read_state,
)

START = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)


def equity_only() -> list[dict[str, Any]]:
    return without(sandbox_tools(), *CRYPTO_TOOL_NAMES)


def test_the_sandbox_surface_is_crypto_ready_with_every_crypto_capability() -> None:
    readiness = assess(sandbox_tools(), clock=SteppedClock(start=START))
    assert readiness.ready
    assert dict(readiness.tools) == {
        "crypto_preview": "preview_crypto_order",
        "crypto_place": "place_crypto_order",
        "crypto_cancel": "cancel_crypto_order",
        "crypto_quotes": "get_crypto_quotes",
    }
    assert readiness.assessed_at == START
    assert (readiness.appeared, readiness.disappeared, readiness.first_run) == ((), (), False)


def test_a_surface_without_crypto_tools_is_not_ready() -> None:
    readiness = assess(equity_only())
    assert not readiness.ready
    assert readiness.available == ()
    assert set(readiness.tools.values()) == {None}


def test_crypto_tools_under_names_we_do_not_control_are_detected() -> None:
    readiness = assess(list(FOREIGN.values()))
    assert readiness.tools["crypto_place"] == "submit_crypto_trade"
    assert readiness.available == (
        "crypto_preview",
        "crypto_place",
        "crypto_cancel",
        "crypto_quotes",
    )


@pytest.mark.req("discovery.readiness.exit-codes")
def test_exit_codes_across_runs_say_appeared_then_unchanged_then_disappeared(
    tmp_path: Path,
) -> None:
    state = tmp_path / "readiness.json"
    clock = SteppedClock(start=START)
    runs = [
        (equity_only(), EXIT_UNCHANGED, (), ()),
        (sandbox_tools(), EXIT_APPEARED, ("crypto_preview", "crypto_place", "crypto_cancel",
                                          "crypto_quotes"), ()),
        (sandbox_tools(), EXIT_UNCHANGED, (), ()),
        (without(sandbox_tools(), "place_crypto_order"), EXIT_DISAPPEARED, (), ("crypto_place",)),
        (sandbox_tools(), EXIT_APPEARED, ("crypto_place",), ()),
    ]  # fmt: skip
    for index, (tools, code, appeared, disappeared) in enumerate(runs):
        readiness, exit_code = check(tools, state, clock=clock)
        assert (exit_code, readiness.appeared, readiness.disappeared) == (
            code,
            appeared,
            disappeared,
        ), index
        assert readiness.first_run is (index == 0)
        clock.advance(timedelta(hours=1))


@pytest.mark.req("discovery.readiness.exit-codes")
def test_disappeared_wins_over_appeared_when_both_happen(tmp_path: Path) -> None:
    state = tmp_path / "readiness.json"
    only_quotes = without(sandbox_tools(), *CRYPTO_TOOL_NAMES[:3])
    only_place = without(sandbox_tools(), "get_crypto_quotes", "preview_crypto_order")
    check(only_quotes, state)
    readiness, exit_code = check(only_place, state)
    assert exit_code == EXIT_DISAPPEARED
    assert readiness.appeared == ("crypto_place", "crypto_cancel")
    assert readiness.disappeared == ("crypto_quotes",)


@pytest.mark.req("discovery.readiness.exit-codes")
def test_a_first_run_with_crypto_present_says_appeared(tmp_path: Path) -> None:
    readiness, exit_code = check(sandbox_tools(), tmp_path / "new" / "readiness.json")
    assert exit_code == EXIT_APPEARED
    assert readiness.first_run
    assert readiness.previous == {}


def test_a_capability_moving_to_another_tool_name_is_shown_but_exits_zero(tmp_path: Path) -> None:
    state = tmp_path / "readiness.json"
    check(sandbox_tools(), state)
    renamed = [*without(sandbox_tools(), "place_crypto_order"), FOREIGN["crypto_place"]]
    readiness, exit_code = check(renamed, state)
    assert exit_code == EXIT_UNCHANGED
    assert readiness.previous["crypto_place"] == "place_crypto_order"
    assert readiness.tools["crypto_place"] == "submit_crypto_trade"


def test_the_state_file_records_the_last_assessment_as_json(tmp_path: Path) -> None:
    state = tmp_path / "readiness.json"
    check(sandbox_tools(), state, clock=SteppedClock(start=START))
    document = json.loads(state.read_text())
    assert document == {
        "version": 1,
        "assessed_at": START.isoformat(),
        "ready": True,
        "capabilities": {
            "crypto_cancel": "cancel_crypto_order",
            "crypto_place": "place_crypto_order",
            "crypto_preview": "preview_crypto_order",
            "crypto_quotes": "get_crypto_quotes",
        },
    }
    assert read_state(state) == document["capabilities"]
    assert [p.name for p in tmp_path.iterdir()] == ["readiness.json"]


def test_a_state_without_an_assessment_time_serialises_as_null() -> None:
    assert Readiness(tools={"crypto_place": None}).to_json()["assessed_at"] is None


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "[]",
        '{"version": 2, "capabilities": {}}',
        '{"version": 1, "capabilities": []}',
        '{"version": 1, "capabilities": {"crypto_place": 3}}',
    ],
)
def test_an_unreadable_state_file_is_refused_and_left_untouched(tmp_path: Path, text: str) -> None:
    state = tmp_path / "readiness.json"
    state.write_text(text)
    with pytest.raises(ConfigError) as raised:
        check(sandbox_tools(), state)
    assert raised.value.key == str(state)
    assert state.read_text() == text


def test_a_state_path_that_cannot_be_read_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        read_state(tmp_path)


def test_a_failed_write_leaves_the_previous_state_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "readiness.json"
    check(equity_only(), state)
    before = state.read_text()

    def refuse(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="disk full"):
        check(sandbox_tools(), state)
    assert state.read_text() == before
    assert os.listdir(tmp_path) == ["readiness.json"]
