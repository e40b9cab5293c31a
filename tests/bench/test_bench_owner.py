"""``ordergate bench owner``: another agent's paper order with and without a scrypt flood,
measured in one run; here its pieces, small (the figures themselves are the bench's)."""

from __future__ import annotations

import pytest

from ordergate.bench import BENCHES, _owner
from ordergate.bench._stats import Summary

pytestmark = pytest.mark.req("owner.code.scrypt-pool")


def test_owner_is_a_registered_bench() -> None:
    assert BENCHES["owner"] is _owner.run_owner_bench


def test_the_bench_prints_each_flooded_case_beside_the_unloaded_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(_owner.SIZES, "quick", _owner.Sizes(rounds=1, orders=2, warmup=1))
    monkeypatch.setattr(_owner, "FLOOD", 3)
    lines: list[Summary] = []
    _owner.run_owner_bench(quick=True, emit=lines.append)  # a fixed number of orders
    assert [line.case for line in lines] == list(_owner.CASES)
    assert lines[0].baseline is None and lines[0].n == 2
    assert {line.baseline for line in lines[1:]} == {"order"}
    assert all(line.ratio is not None and line.ratio > 0 for line in lines[1:])
