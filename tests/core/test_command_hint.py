"""A hint names the command the person types: ``scripts/uv run ordergate …`` under ``uv run``
(the quickstart's way), ``ordergate …`` when installed (issue 25 §7)."""

from __future__ import annotations

import pytest

from ordergate.core import command_hint


@pytest.mark.req("cli.hints.as-typed")
def test_under_uv_run_a_hint_names_scripts_uv_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UV_RUN_RECURSION_DEPTH", "1")
    assert command_hint("owner init") == "scripts/uv run ordergate owner init"


@pytest.mark.req("cli.hints.as-typed")
def test_installed_a_hint_names_ordergate(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("UV_RUN_RECURSION_DEPTH", raising=False)
    assert command_hint("token mint") == "ordergate token mint"


def _shown_to_a_person() -> dict[str, str]:
    """Each text that names a command to a person, built as it is shown."""
    from ordergate.client import LoginRequired
    from ordergate.execution._outcome import _next_step
    from ordergate.gateway.desk._wiring import enrol_hint
    from ordergate.gateway.oauth._owner_code import enrol_notice
    from ordergate.owner import NOT_ENROLLED, OwnerRefused

    return {
        "owner refusal": str(OwnerRefused(NOT_ENROLLED)),
        "consent notice": enrol_notice(),
        "serve banner": enrol_hint(),
        "login": str(LoginRequired("no tokens")),
        "outside the session": _next_step(None),
    }


@pytest.mark.req("cli.hints.as-typed")
def test_every_hint_shown_to_a_person_names_the_command_as_typed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("UV_RUN_RECURSION_DEPTH", "1")
    for place, text in _shown_to_a_person().items():
        assert "scripts/uv run ordergate " in text, place
        assert "`ordergate " not in text and ": ordergate " not in text, place


@pytest.mark.req("cli.hints.as-typed")
def test_the_gateway_log_names_the_grading_command_as_typed(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from ordergate.core import RealtimeClock
    from ordergate.gateway._grading import serving_grader
    from ordergate.gateway._serve import Serving
    from ordergate.policy import PolicyConfig
    from ordergate.profiles import load_profiles

    monkeypatch.setenv("UV_RUN_RECURSION_DEPTH", "1")
    profiles = load_profiles(None, PolicyConfig())
    serving = Serving(notes=(), running=None, sealed=True, profiles=profiles)
    with caplog.at_level("INFO", logger="ordergate.gateway._grading"):
        assert serving_grader(serving, RealtimeClock()) is None
    assert "`scripts/uv run ordergate record grade` grades on demand" in caplog.text
