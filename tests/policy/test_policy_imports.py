"""The dependency rule (docs/architecture.md, "Packages"): the policy engine imports only core."""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_policy_engine_pulls_in_no_client_sandbox_gateway_or_ledger() -> None:
    probe = (
        "import sys, ordergate.policy; "
        "print(sorted({m.split('.')[1] for m in sys.modules if m.startswith('ordergate.')}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "['core', 'policy']"
