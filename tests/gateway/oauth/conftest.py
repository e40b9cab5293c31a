from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from gateway_oauth_kit import Gateway, serve


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def gateway(tmp_path: Path) -> Iterator[Gateway]:
    with serve(tmp_path) as served:
        yield served
