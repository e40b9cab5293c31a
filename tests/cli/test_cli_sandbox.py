"""The ``ordergate`` command line: help, refusals, and the venue served by a real process."""

from __future__ import annotations

import json
import re
import signal
import sys
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest
from process_testkit import EXIT_BOUND_S, serving_process
from typer.testing import CliRunner, Result
from venue_testkit import VenueClient

from ordergate.bench import BENCHES, Summary, summarise
from ordergate.cli import app

# Wide enough that rich never truncates an option name in a help or error panel.
WIDE = {"COLUMNS": "200"}


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args), env=WIDE)


def test_the_root_help_lists_the_sandbox_and_bench_commands() -> None:
    result = invoke("--help")
    assert result.exit_code == 0, result.output
    assert "Usage: ordergate" in result.output
    assert "sandbox" in result.output
    assert "bench" in result.output


def test_running_ordergate_with_no_arguments_shows_the_help() -> None:
    result = invoke()
    # Click's no_args_is_help answers with the help and the usage-error exit code.
    assert result.exit_code == 2
    assert "Usage: ordergate" in result.output
    assert "sandbox" in result.output


def test_the_serve_help_explains_every_option() -> None:
    result = invoke("sandbox", "serve", "--help")
    assert result.exit_code == 0, result.output
    for option in (
        "--host",
        "--port",
        "--seed",
        "--clock",
        "--start",
        "--speed",
        "--page-size",
        "--framing",
        "--cash",
        "--approval-required",
        "--account-type",
        "--option-level",
        "--admin",
        "--access-token-ttl",
    ):
        assert option in result.output, option
    assert "realtime, accelerated" in result.output
    assert "stepped" in result.output
    assert "loopback" in result.output.lower()


def test_a_realtime_clock_started_elsewhere_runs_the_venue_from_that_instant() -> None:
    from datetime import UTC, datetime, timedelta

    from ordergate.core import ClockMode
    from ordergate.sandbox import SandboxConfig
    from ordergate.sandbox._app import build_sandbox

    start = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
    sandbox = build_sandbox(SandboxConfig(clock=ClockMode.REALTIME, start=start, port=0))
    assert start <= sandbox.venue.now() < start + timedelta(minutes=5)


def test_the_bench_help_names_the_known_benchmarks() -> None:
    result = invoke("bench", "--help")
    assert result.exit_code == 0, result.output
    assert "--quick" in result.output
    assert "sandbox" in result.output


@pytest.mark.parametrize(
    ("args", "option", "reason"),
    [
        (["--host", "0.0.0.0"], "--host", "loopback only"),
        (["--start", "2026-12-01T10:00"], "--start", "timezone"),
        (["--clock", "stepped", "--start", "nonsense"], "--start", "ISO-8601"),
        (["--framing", "xml"], "--framing", "json or sse"),
        (["--speed", "abc"], "--speed", "decimal number"),
        (["--speed", "NaN"], "--speed", "finite"),
        (["--speed", "0"], "--speed", "positive"),
        (["--cash", "lots"], "--cash", "decimal number"),
        (["--cash", "-1"], "--cash", "negative"),
        (["--port", "70000"], "--port", "0-65535"),
        (["--page-size", "0"], "--page-size", "at least 1"),
        (["--access-token-ttl", "0"], "--access-token-ttl", "positive"),
        (["--clock", "hourglass"], "'--clock'", "'hourglass' is not one of"),
        (["--port", "eighty"], "'--port'", "valid integer"),
        (["--account-type", "joint"], "--account-type", "must be one of cash, margin"),
        (["--option-level", "4"], "--option-level", "must be one of 1, 2, 3"),
        (["--option-level", "0"], "--option-level", "must be one of 1, 2, 3"),
        (["--option-level", "three"], "'--option-level'", "valid integer"),
    ],
)
def test_serve_refuses_a_bad_option_naming_it_with_exit_code_2(
    args: list[str], option: str, reason: str
) -> None:
    result = invoke("sandbox", "serve", *args)
    assert result.exit_code == 2, result.output
    assert f"Invalid value for {option}:" in result.output
    assert reason in result.output


def test_bench_refuses_an_unknown_benchmark_naming_the_argument() -> None:
    result = invoke("bench", "nosuch")
    assert result.exit_code == 2, result.output
    assert "Invalid value for NAME" in result.output
    assert f"unknown benchmark (known: {', '.join(BENCHES)})" in result.output


def test_bench_prints_one_json_line_per_case_as_the_benchmark_emits_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A stand-in benchmark: the real one starts servers and runs for a minute.
    def fake(*, quick: bool, emit: Callable[[Summary], None]) -> None:
        baseline = summarise("fake", "bare", [1500, 2500, 3500])
        emit(baseline)
        emit(summarise("fake", "venue", [5000] if quick else [9000]).compared_with(baseline))

    monkeypatch.setitem(BENCHES, "fake", fake)
    result = invoke("bench", "fake", "--quick")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert [json.loads(line, parse_float=Decimal) for line in lines] == [
        {"bench": "fake", "case": "bare", "n": 3, "p50_us": Decimal("2.5"),
         "p99_us": Decimal("3.5"), "ops_per_s": 400000},
        {"bench": "fake", "case": "venue", "n": 1, "p50_us": 5, "p99_us": 5,
         "ops_per_s": 200000, "baseline": "bare", "ratio": 2},
    ]  # fmt: skip


# -- a real process ---------------------------------------------------------------------------


SERVE = [
    "sandbox", "serve", "--port", "0", "--clock", "stepped",
    "--start", "2026-12-01T15:00:00Z", "--seed", "3",
    "--account-type", "margin", "--option-level", "3",
]  # fmt: skip
CONSOLE_SCRIPT = str(Path(sys.executable).with_name("ordergate"))


@pytest.mark.parametrize(
    ("launcher", "stop", "exit_status"),
    [
        # Ctrl+C, as the banner says: a quiet, successful exit.
        ([sys.executable, "-m", "ordergate"], signal.SIGINT, 0),
        # SIGTERM: uvicorn shuts down gracefully, then re-raises the signal so the parent
        # sees "terminated by SIGTERM", the Unix convention.
        ([CONSOLE_SCRIPT], signal.SIGTERM, -signal.SIGTERM),
    ],
    ids=["python-m-ctrl-c", "console-script-sigterm"],
)
def test_serve_runs_the_venue_on_the_port_its_banner_shows_until_stopped(
    launcher: list[str], stop: signal.Signals, exit_status: int
) -> None:
    with serving_process([*launcher, *SERVE], b"Press Ctrl+C") as (process, banner):
        endpoint = re.search(r"MCP endpoint\s+(http://127\.0\.0\.1:(\d+)/mcp/trading)\s", banner)
        assert endpoint is not None, banner
        # --port 0: the banner shows the port the OS picked, never 0.
        assert int(endpoint.group(2)) > 0
        assert "clock            stepped from 2026-12-01T15:00:00+00:00" in banner
        assert "seed             3" in banner
        account = re.search(r"agentic account\s+(\S+) \(margin, option_level_3\)", banner)
        assert account is not None, banner

        base_url = endpoint.group(1).removesuffix("/mcp/trading")
        assert f"admin (loopback) {base_url}/_sandbox/state" in banner
        with VenueClient(base_url) as client:
            client.sign_in()
            client.initialize()
            accounts = client.data("get_accounts")["accounts"]
            agentic = [a for a in accounts if a["agentic_allowed"]]
            assert [(a["account_number"], a["type"], a["option_level"]) for a in agentic] == [
                (account.group(1), "margin", "option_level_3")
            ]
            # The stepped clock stands still until told to move.
            assert client.step(60).startswith("2026-12-01T15:01:00")

        process.send_signal(stop)
        assert process.wait(timeout=EXIT_BOUND_S) == exit_status
        assert process.stderr is not None
        # The pipe is at EOF once the process is gone: this read cannot block.
        assert b"Traceback" not in process.stderr.read()
