from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from custody_kit import POLICY, Custodian, custodian, live_rail
from person_console_kit import PersonConsole
from pg_testkit import database


@pytest.fixture
def policy() -> str:
    """The policy ``gateway`` serves under; a module that wants its own overrides this."""
    return POLICY


@pytest.fixture(params=["sqlite", "postgres"])
def gateway(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, policy: str
) -> Iterator[Custodian]:
    with (
        database(request.param, tmp_path) as url,
        custodian(tmp_path, monkeypatch, db_url=url, policy=policy) as served,
    ):
        yield served


@pytest.fixture
def live(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Custodian]:
    """A hosted rail in live mode over the sandbox whose ``optiontrader`` may trade options."""
    with live_rail(tmp_path, monkeypatch) as served:
        yield served


@pytest.fixture
def browser(rail: Custodian) -> Iterator[PersonConsole]:
    """A person's browser on the module's ``rail``'s console, closed after the test."""
    opened = PersonConsole(rail)
    try:
        yield opened
    finally:
        opened.close()
