"""The conformance suite's runner: ``npx``, required in CI, else the tests skip saying why."""

from __future__ import annotations

import pytest
from system_testkit import NODE_HOW, program


@pytest.fixture(scope="module")
def npx() -> str:
    return program("npx", NODE_HOW, "run the MCP conformance suite")
