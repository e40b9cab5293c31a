"""``ordergate bench cli``: each command as a whole process, against ``python -c pass``.

What a person waits for when typing a command is the whole process: the interpreter's
start, every import, the work, the exit. Each case runs ``python -m ordergate …`` with this
interpreter, timed from start to exit with ``time.perf_counter_ns``; the baseline is
``python -c pass`` from the same interpreter in the same rounds (A B A B …), so a machine
that slows down during the run slows both. Goals (issue 13 §7): ``--help`` ≤ 0.3 s and
``status`` ≤ 1 s.

The commands run in a scratch ``ORDERGATE_HOME`` (default policy, a fresh ledger made by one
``status`` before the rounds), with ``ORDERGATE_DB_URL``, ``ORDERGATE_UPSTREAM_URL`` and
``ORDERGATE_OWNER_SOCKET`` removed: ``status`` runs on the embedded sandbox, ``approvals``
reads the ledger directly (its ``--owner-socket`` names a path nothing listens at), ``tools list``
reads the packaged inventory. Python's byte-code cache is whatever the environment gives: with
``PYTHONDONTWRITEBYTECODE`` set and no cache on disk, every run compiles every module again.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from importlib.resources import files
from pathlib import Path

from ordergate.bench._stats import Summary, summarise

__all__ = ["SIZES", "cases", "run_cli_bench"]

# (rounds, warm-up runs per case)
SIZES = {"quick": (3, 1), "full": (15, 2)}

_BASELINE = "python_c_pass"
_CLEARED = ("ORDERGATE_DB_URL", "ORDERGATE_UPSTREAM_URL", "ORDERGATE_OWNER_SOCKET")
_TIMEOUT_S = 120.0


def cases(owner_socket: Path) -> dict[str, list[str]]:
    """Case name → the arguments after the interpreter."""
    inventory = str(files("ordergate.inventory") / "data" / "inventory-2026-09-21.json")
    ordergate = ["-m", "ordergate"]
    return {
        _BASELINE: ["-c", "pass"],
        "help": [*ordergate, "--help"],
        "version": [*ordergate, "--version"],
        "tools_list": [*ordergate, "tools", "list", inventory],
        "status": [*ordergate, "status", "--sandbox"],
        "approvals": [
            *ordergate,
            "approvals",
            "--owner-socket",
            str(owner_socket),
        ],
    }


def _environment(home: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in _CLEARED}
    env["ORDERGATE_HOME"] = str(home)
    env["COLUMNS"] = "80"
    return env


def _run_ns(args: Sequence[str], env: Mapping[str, str]) -> int:
    command = [sys.executable, *args]
    started = time.perf_counter_ns()
    done = subprocess.run(
        command, env=dict(env), capture_output=True, timeout=_TIMEOUT_S, check=False
    )
    elapsed = time.perf_counter_ns() - started
    if done.returncode != 0:
        tail = done.stderr.decode(errors="replace")[-400:]
        raise RuntimeError(f"bench cli: {' '.join(args)} exited {done.returncode}: {tail}")
    return elapsed


def run_cli_bench(*, quick: bool, emit: Callable[[Summary], None]) -> None:
    rounds, warmup = SIZES["quick" if quick else "full"]
    with tempfile.TemporaryDirectory(prefix="ordergate-bench-cli-") as scratch:
        home = Path(scratch) / "home"
        home.mkdir(mode=0o700)
        env = _environment(home)
        runs = cases(Path(scratch) / "no-gateway" / "owner.sock")
        for args in runs.values():
            for _ in range(warmup):
                _run_ns(args, env)  # the first status also creates the ledger
        samples: dict[str, list[int]] = {name: [] for name in runs}
        for _ in range(rounds):
            for name, args in runs.items():
                samples[name].append(_run_ns(args, env))
    baseline = summarise("cli", _BASELINE, samples.pop(_BASELINE))
    emit(baseline)
    for name, timings in samples.items():
        emit(summarise("cli", name, timings).compared_with(baseline))
