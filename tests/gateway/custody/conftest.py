from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from custody_kit import Custodian, custodian
from pg_testkit import database


@pytest.fixture(params=["sqlite", "postgres"])
def gateway(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Custodian]:
    with (
        database(request.param, tmp_path) as url,
        custodian(tmp_path, monkeypatch, db_url=url) as served,
    ):
        yield served
