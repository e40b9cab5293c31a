"""``ordergate status`` starts without the heavy imports it does not need (issue 13 §7): the
client's handshake and the sandbox's OAuth metadata need no MCP SDK, an up-to-date ledger no
Alembic, and nothing compiles a JSON Schema."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = (
    "import sys\n"
    "from ordergate.cli import app\n"
    "try:\n"
    "    app(['status', '--sandbox'])\n"
    "except SystemExit as done:\n"
    "    assert not done.code, done.code\n"
    "heavy = ('mcp', 'mcp_types', 'alembic')\n"
    "print(sorted({m.split('.')[0] for m in sys.modules} & set(heavy)))\n"
)


@pytest.mark.req("cli.fast-start")
def test_status_on_a_migrated_ledger_imports_neither_the_mcp_sdk_nor_alembic(
    tmp_path: Path,
) -> None:
    env = {**os.environ, "ORDERGATE_HOME": str(tmp_path / "home")}
    runs = [
        subprocess.run(
            [sys.executable, "-c", PROBE],
            capture_output=True, text=True, check=True, timeout=120, env=env,
        ).stdout.strip().splitlines()[-1]
        for _ in range(2)
    ]  # fmt: skip
    assert runs[0] == "['alembic']"  # a fresh ledger is migrated: Alembic is needed once
    assert runs[1] == "[]"
