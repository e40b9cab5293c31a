"""The benchmarks ``ordergate bench NAME`` knows."""

from __future__ import annotations

from collections.abc import Callable

from ordergate.bench._cli import run_cli_bench
from ordergate.bench._client import run_client_bench
from ordergate.bench._discovery import run_discovery_bench
from ordergate.bench._gateway import run_gateway_bench
from ordergate.bench._history import run_history_bench
from ordergate.bench._ledger import run_ledger_bench
from ordergate.bench._memory import run_memory_bench
from ordergate.bench._owner import run_owner_bench
from ordergate.bench._policy import run_policy_bench
from ordergate.bench._sandbox import run_sandbox_bench
from ordergate.bench._stats import Summary
from ordergate.bench._tokens import run_tokens_bench

__all__ = ["BENCHES", "run_bench"]

Bench = Callable[..., None]

BENCHES: dict[str, Bench] = {
    "sandbox": run_sandbox_bench,
    "client": run_client_bench,
    "discovery": run_discovery_bench,
    "policy": run_policy_bench,
    "ledger": run_ledger_bench,
    "gateway": run_gateway_bench,
    "tokens": run_tokens_bench,
    "history": run_history_bench,
    "memory": run_memory_bench,
    "cli": run_cli_bench,
    "owner": run_owner_bench,
}


def run_bench(name: str, *, quick: bool, emit: Callable[[Summary], None]) -> None:
    """Run one benchmark; raises ``KeyError`` for an unknown name."""
    BENCHES[name](quick=quick, emit=emit)
