from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from callers_kit import Host, host_gateway


@pytest.fixture
def host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Host]:
    with host_gateway(tmp_path, monkeypatch) as served:
        yield served
