"""Summaries of timed samples in the shape ``ordergate bench`` prints."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

__all__ = ["Summary", "json_line", "summarise", "timed_ns"]


@dataclass(frozen=True, slots=True)
class Summary:
    bench: str
    case: str
    n: int
    p50_us: Decimal
    p99_us: Decimal
    ops_per_s: Decimal
    baseline: str | None = None
    ratio: Decimal | None = None

    def compared_with(self, baseline: Summary) -> Summary:
        ratio = (self.p50_us / baseline.p50_us).quantize(Decimal("0.01"), ROUND_HALF_EVEN)
        return Summary(
            self.bench, self.case, self.n, self.p50_us, self.p99_us, self.ops_per_s,
            baseline.case, ratio,
        )  # fmt: skip

    def as_json(self) -> dict[str, Any]:
        # Figures go out as JSON numbers; Decimal keeps the arithmetic exact until here.
        line: dict[str, Any] = {
            "bench": self.bench,
            "case": self.case,
            "n": self.n,
            "p50_us": _number(self.p50_us),
            "p99_us": _number(self.p99_us),
            "ops_per_s": _number(self.ops_per_s),
        }
        if self.baseline is not None and self.ratio is not None:
            line["baseline"] = self.baseline
            line["ratio"] = _number(self.ratio)
        return line


def _number(value: Decimal) -> int | Decimal:
    return int(value) if value == value.to_integral_value() else value


def _percentile(ordered: list[int], fraction: Decimal) -> int:
    index = int((Decimal(len(ordered) - 1) * fraction).to_integral_value(ROUND_HALF_EVEN))
    return ordered[index]


def summarise(bench: str, case: str, samples_ns: list[int]) -> Summary:
    """p50/p99 in microseconds and throughput from per-call durations in nanoseconds."""
    if not samples_ns:
        raise ValueError("no samples")
    ordered = sorted(samples_ns)
    micro = Decimal(1000)
    p50 = (Decimal(_percentile(ordered, Decimal("0.50"))) / micro).quantize(Decimal("0.1"))
    p99 = (Decimal(_percentile(ordered, Decimal("0.99"))) / micro).quantize(Decimal("0.1"))
    total_s = Decimal(sum(ordered)) / Decimal(1_000_000_000)
    ops = (Decimal(len(ordered)) / total_s).quantize(Decimal("0.1"))
    return Summary(bench, case, len(ordered), p50, p99, ops)


def json_line(fields: dict[str, Any]) -> str:
    """One JSON object; Decimals are written as JSON numbers with their exact digits."""
    parts = []
    for key, value in fields.items():
        text = format(value, "f") if isinstance(value, Decimal) else json.dumps(value)
        parts.append(f"{json.dumps(key)}: {text}")
    return "{" + ", ".join(parts) + "}"


def timed_ns(call: Callable[[], object], n: int) -> list[int]:
    """``n`` calls of ``call``, each timed alone (``perf_counter_ns``)."""
    samples: list[int] = []
    clock = time.perf_counter_ns
    for _ in range(n):
        started = clock()
        call()
        samples.append(clock() - started)
    return samples
