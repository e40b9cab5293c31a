"""``ordergate bench memory``: a tiny run through real venue and gateway processes prints the
gateway's resident set at both checkpoints. No figure is asserted."""

from __future__ import annotations

import json
import os
from decimal import Decimal

import pytest
from typer.testing import CliRunner

from ordergate.bench import BENCHES, _memory
from ordergate.cli import app

pytestmark = pytest.mark.req("bench.memory")


def test_memory_is_a_registered_bench() -> None:
    assert BENCHES["memory"] is _memory.run_memory_bench


def test_the_resident_set_is_read_from_proc_and_a_process_without_one_says_so() -> None:
    assert _memory.resident_kib(os.getpid()) > 0
    with pytest.raises(RuntimeError, match="no /proc/"):
        _memory.resident_kib(2**22 + 1)  # past Linux's largest pid


def test_a_quick_run_prints_the_gateways_rss_at_both_checkpoints(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(_memory.SIZES, "quick", _memory.Sizes(first=2, last=4))
    result = CliRunner().invoke(app, ["bench", "memory", "--quick"])
    assert result.exit_code == 0, result.output
    (line,) = [json.loads(text, parse_float=Decimal) for text in result.stdout.splitlines()]
    assert (line["bench"], line["case"], line["n"]) == ("memory", "gateway_rss", 4)
    assert (line["orders_first"], line["orders_last"]) == (2, 4)
    assert line["rss_kb_first"] > 0 and line["rss_kb_last"] > 0
    assert "rss_mb_per_1000" in line
    assert "bench memory: 4 orders, gateway RSS" in result.stderr
