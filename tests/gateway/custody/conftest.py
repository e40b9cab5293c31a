from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from custody_kit import Custodian, custodian


@pytest.fixture
def gateway(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Custodian]:
    with custodian(tmp_path, monkeypatch) as served:
        yield served
