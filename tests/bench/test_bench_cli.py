"""``ordergate bench cli``: whole processes against ``python -c pass``, in the bench shape."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ordergate.bench import BENCHES, _cli
from ordergate.cli import app


def test_cli_is_a_registered_bench() -> None:
    assert BENCHES["cli"] is _cli.run_cli_bench


def test_the_cases_are_the_commands_people_type_against_a_bare_interpreter() -> None:
    runs = _cli.cases(Path("/nonexistent/owner.sock"))
    assert list(runs) == ["python_c_pass", "help", "version", "tools_list", "status", "approvals"]
    assert runs["python_c_pass"] == ["-c", "pass"]
    assert runs["status"] == ["-m", "ordergate", "status", "--sandbox"]
    # approvals reads the ledger directly: no gateway serves its owner channel.
    assert runs["approvals"][-2:] == ["--owner-socket", "/nonexistent/owner.sock"]


def test_bench_cli_prints_the_baseline_then_each_command_against_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    every = _cli.cases
    monkeypatch.setattr(
        _cli,
        "cases",
        lambda path: {
            k: v for k, v in every(path).items() if k in {"python_c_pass", "version", "help"}
        },
    )
    monkeypatch.setitem(_cli.SIZES, "quick", (2, 0))
    result = CliRunner().invoke(app, ["bench", "cli", "--quick"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line, parse_float=Decimal) for line in result.stdout.splitlines()]
    assert [line["case"] for line in lines] == ["python_c_pass", "help", "version"]
    baseline, *compared = lines
    assert baseline["n"] == 2 and "ratio" not in baseline
    for line in compared:
        assert line["bench"] == "cli" and line["baseline"] == "python_c_pass"
        assert line["ratio"] > 0


def test_a_command_that_fails_stops_the_bench_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        _cli, "cases", lambda port: {"python_c_pass": ["-c", "pass"], "bad": ["-c", "exit(3)"]}
    )
    monkeypatch.setitem(_cli.SIZES, "quick", (1, 0))
    with pytest.raises(RuntimeError, match="exited 3"):
        _cli.run_cli_bench(quick=True, emit=lambda summary: None)


def test_a_bench_shows_a_spinner_on_a_terminal_and_nothing_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys
    from contextlib import nullcontext

    from rich.status import Status

    from ordergate.cli._progress import working

    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    assert isinstance(working("bench cli"), nullcontext)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert isinstance(working("bench cli"), Status)
