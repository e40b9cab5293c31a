"""The conformance suite's runner: ``npx``, required in CI, else the tests skip saying why."""

from __future__ import annotations

import os
import shutil

import pytest


@pytest.fixture(scope="module")
def npx() -> str:
    found = shutil.which("npx")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("npx is required in CI to run the MCP conformance suite")
        pytest.skip("npx not found: install Node.js 20+ to run the MCP conformance suite")
    return found
