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
