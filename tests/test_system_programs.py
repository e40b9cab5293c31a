"""A test that needs a system program skips without it, naming the command that installs it,
as the Postgres and Redis tests do; in CI (``CI`` set) it fails instead, and so does any
other skip (issue 25 §1)."""

from __future__ import annotations

from pathlib import Path

import pytest
from system_testkit import HAPROXY_HOW, fail_skips_in_ci, program


def _no_programs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))


def test_a_missing_program_skips_naming_its_install_command_outside_ci(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _no_programs(monkeypatch, tmp_path)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"haproxy not found: .*apt-get install -y"):
        program("haproxy", HAPROXY_HOW, "validate a configuration")


def test_a_missing_program_fails_in_ci(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _no_programs(monkeypatch, tmp_path)
    monkeypatch.setenv("CI", "1")
    with pytest.raises(pytest.fail.Exception, match="required in CI"):
        program("haproxy", HAPROXY_HOW, "validate a configuration")


def test_a_program_on_path_is_found(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    tool = tmp_path / "haproxy"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    _no_programs(monkeypatch, tmp_path)
    assert program("haproxy", HAPROXY_HOW, "validate a configuration") == str(tool)


def _skipped() -> pytest.TestReport:
    return pytest.TestReport(
        "tests/x.py::test_x",
        ("tests/x.py", 1, "test_x"),
        {},
        "skipped",
        ("tests/x.py", 1, "Skipped: needs a server"),
        "setup",
    )


def test_any_skip_fails_in_ci_with_its_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    report = _skipped()
    fail_skips_in_ci(report)
    assert report.outcome == "failed"
    assert "needs a server" in str(report.longrepr)


def test_a_skip_outside_ci_stays_a_skip(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    report = _skipped()
    fail_skips_in_ci(report)
    assert report.outcome == "skipped"
