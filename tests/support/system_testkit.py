"""System programs the tests drive (HAProxy, Chromium, Node, systemd-analyze, useradd as
root): found on ``PATH``, or a skip naming the command that installs them, as the Postgres
and Redis tests skip without their servers. In CI (``CI`` set; ``.ci/run`` sets it) a
missing program fails the test instead: CI runs every test (``tests/conftest.py`` also
fails any skip there).
"""

from __future__ import annotations

import os
import shutil
from typing import NoReturn

import pytest

HAPROXY_HOW = "`apt-get install -y haproxy`"
NODE_HOW = "Node.js 20+ (`apt-get install -y nodejs npm`)"
SYSTEMD_HOW = "`apt-get install -y systemd`"


def in_ci() -> bool:
    """Whether this run is CI's, where nothing may skip."""
    return bool(os.environ.get("CI"))


def missing(what: str, how: str, purpose: str) -> NoReturn:
    """Skips the test saying ``what`` is missing and ``how`` to install it (fails in CI).

    ``purpose`` finishes "… to …" (what the program is needed for).
    """
    if in_ci():
        pytest.fail(f"{what} is required in CI to {purpose}")
    pytest.skip(f"{what} not found: install {how} to {purpose}")


def program(name: str, how: str, purpose: str) -> str:
    """The path of ``name`` on ``PATH``; without it, ``missing(name, how, purpose)``."""
    found = shutil.which(name)
    if found is None:
        missing(name, how, purpose)
    return found


def fail_skips_in_ci(report: pytest.TestReport) -> None:
    """In CI, turns a skipped test's report into a failure naming the skip's reason: a skip
    there would hide a test CI exists to run (a missing program, server or privilege)."""
    if not (in_ci() and report.skipped) or hasattr(report, "wasxfail"):
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    report.outcome = "failed"
    report.longrepr = f"{report.nodeid} skipped in CI, where every test must run: {reason}"
