"""The MCP conformance suite (npm ``@modelcontextprotocol/conformance``) against the venue.

Scenarios that apply to a tools-only server must pass; the rest are listed, each with its
reason, in ``expected-failures.yml``. The suite's baseline check also fails when a listed
scenario starts passing, so the file cannot go stale.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from bearer_proxy import BearerProxy
from venue_testkit import running_venue

HERE = Path(__file__).resolve().parent
SUITE = "@modelcontextprotocol/conformance@0.1.13"


def test_conformance_suite_passes_every_scenario_outside_the_baseline(
    npx: str, tmp_path: Path
) -> None:
    with running_venue() as venue:
        assert venue.token is not None
        with BearerProxy(venue.base_url, venue.token) as proxy:
            run = subprocess.run(
                [
                    npx, "-y", SUITE, "server",
                    "--url", f"{proxy.url}/mcp/trading",
                    "--expected-failures", str(HERE / "expected-failures.yml"),
                    "-o", str(tmp_path),
                ],
                capture_output=True,
                text=True,
                timeout=600,
                check=False,
            )  # fmt: skip
    report = run.stdout[-6000:] + run.stderr[-2000:]
    assert run.returncode == 0, report
    assert "Baseline check passed" in run.stdout, report
