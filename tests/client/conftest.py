"""Fixtures every typed-client test module shares: the anyio backend and a running venue."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from client_testkit import venue
from venue_testkit import VenueClient


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def sandbox() -> Iterator[VenueClient]:
    """One venue (stepped clock) per test module, with a signed-in admin client."""
    with venue() as client:
        yield client
