"""Settings every test starts from."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _no_gateway_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    # The owner's commands look for a running gateway before acting on the ledger; a test
    # names its own gateway, never whatever this machine runs on the default port (port 9,
    # discard, has no listener).
    monkeypatch.setenv("ORDERGATE_GATEWAY_URL", "http://127.0.0.1:9")
