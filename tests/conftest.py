"""Settings every test starts from, and the suite-wide scan for the owner's secrets.

Every owner credential a test makes (``owner_testkit``: TOTP secrets, passphrases, and each
code it hands out) is registered; after every test, everything pytest captured for it
(stdout, stderr, log records) and the output of every ``CliRunner`` command it ran is
searched for them. Finding one fails the test: no owner code, TOTP secret or passphrase may
reach a log, an error or an output anywhere in the suite.

In CI (``CI`` set) a skipped test fails instead (``system_testkit.fail_skips_in_ci``):
outside CI a test skips when its server or program is missing, saying how to get it.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import owner_testkit
import pytest
from hypothesis import settings
from system_testkit import fail_skips_in_ci
from typer.testing import CliRunner, Result

# Hypothesis's deadline per example measures the machine's load, not the code: with the
# suite's workers sharing the cores (and other runs beside them) it failed examples at random.
settings.register_profile("ordergate", deadline=None)
settings.load_profile("ordergate")

_invoke = CliRunner.invoke
_cli_outputs: list[str] = []


def _recording_invoke(self: CliRunner, *args: Any, **kwargs: Any) -> Result:
    result = _invoke(self, *args, **kwargs)
    _cli_outputs.append(result.output)
    if result.exception is not None:
        _cli_outputs.append(repr(result.exception))
    return result


CliRunner.invoke = _recording_invoke  # type: ignore[method-assign]


@pytest.fixture(autouse=True)
def _no_gateway_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    # Commands that call a gateway over TCP name their own, never whatever this machine runs
    # on the default port (port 9, discard, has no listener); the owner's commands and every
    # gateway a test starts find the owner channel in the test's own ORDERGATE_HOME.
    monkeypatch.setenv("ORDERGATE_GATEWAY_URL", "http://127.0.0.1:9")
    monkeypatch.delenv("ORDERGATE_OWNER_SOCKET", raising=False)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, None]:
    outcome = yield
    report = outcome.get_result()
    fail_skips_in_ci(report)
    if report.when != "teardown":
        return
    captured = "\n".join(text for _, text in report.sections) + "\n".join(_cli_outputs)
    _cli_outputs.clear()
    leaks = owner_testkit.leaks(captured)
    owner_testkit.CODES.clear()
    if leaks and report.passed:
        report.outcome = "failed"
        report.longrepr = f"an owner secret reached the output of {item.nodeid}: {leaks}"
