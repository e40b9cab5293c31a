"""The README's library example runs, as written, against the sandbox venue."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from venue_testkit import running_venue

README = Path(__file__).resolve().parents[2] / "README.md"
SANDBOX_URL = "http://127.0.0.1:8790/mcp/trading"


def _library_example() -> str:
    text = README.read_text()
    section = text.split("## Use it as a library", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert match is not None, "the section has no python example"
    return match.group(1)


def test_readme_library_example_runs_against_the_sandbox(tmp_path: Path) -> None:
    example = _library_example()
    assert SANDBOX_URL in example
    with running_venue() as venue:
        assert venue.token is not None
        env = {
            **os.environ,
            "ORDERGATE_HOME": str(tmp_path),
            "ROBINHOOD_ACCESS_TOKEN": venue.token,
        }
        login = subprocess.run(
            [sys.executable, "-m", "ordergate", "login", "--url", venue.mcp_url],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert login.returncode == 0, login.stdout + login.stderr
        del env["ROBINHOOD_ACCESS_TOKEN"]
        run = subprocess.run(
            [sys.executable, "-c", example.replace(SANDBOX_URL, venue.mcp_url)],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        account = venue.agentic_account()["account_number"]
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"agentic account {account}" in run.stdout
    assert "AAPL bid" in run.stdout and "MSFT bid" in run.stdout
    assert "review of a limit buy at" in run.stdout
    assert venue.token not in run.stdout + run.stderr + login.stdout + login.stderr
