"""Bench summaries: percentiles and throughput from known samples, and the JSON line's shape."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest

from ordergate.bench import Summary, json_line, summarise

# 1 µs, 2 µs, … 100 µs, as nanoseconds, deliberately out of order.
HUNDRED = [1000 * i for i in (*range(51, 101), *range(50, 0, -1))]
DESIGN_KEYS = ["bench", "case", "n", "p50_us", "p99_us", "ops_per_s"]


def exact(line: str) -> dict[str, Any]:
    """A JSON line decoded with its numbers' exact digits (floats as Decimal)."""
    decoded: dict[str, Any] = json.loads(line, parse_float=Decimal)
    return decoded


def test_summarise_takes_nearest_rank_percentiles_in_microseconds() -> None:
    summary = summarise("sandbox", "case", HUNDRED)
    assert summary.n == 100
    # Ranks: (n-1)·0.50 = 49.5 rounds half-even to 50, (n-1)·0.99 = 98.01 rounds to 98.
    assert summary.p50_us == Decimal("51.0")
    assert summary.p99_us == Decimal("99.0")


def test_summarise_derives_throughput_from_the_total_time_spent() -> None:
    summary = summarise("sandbox", "case", HUNDRED)
    # 100 calls in 5050 µs: 19801.98… calls a second.
    assert summary.ops_per_s == Decimal("19802.0")
    assert summarise("b", "c", [1500, 2500, 3500]).ops_per_s == Decimal("400000.0")


def test_summarise_does_not_depend_on_the_order_of_the_samples() -> None:
    assert summarise("b", "c", HUNDRED) == summarise("b", "c", sorted(HUNDRED))


def test_summarise_rounds_to_a_tenth_of_a_microsecond_half_even() -> None:
    assert summarise("b", "c", [1250]).p50_us == Decimal("1.2")
    assert summarise("b", "c", [1350]).p50_us == Decimal("1.4")
    single = summarise("b", "c", [1234])
    assert (single.n, single.p50_us, single.p99_us) == (1, Decimal("1.2"), Decimal("1.2"))
    assert single.ops_per_s == Decimal("810372.8")


def test_summarise_refuses_an_empty_run() -> None:
    with pytest.raises(ValueError, match="no samples"):
        summarise("b", "c", [])


def test_summarise_keeps_figures_as_decimals() -> None:
    summary = summarise("b", "c", HUNDRED)
    for figure in (summary.p50_us, summary.p99_us, summary.ops_per_s):
        assert isinstance(figure, Decimal)


def test_compared_with_is_the_ratio_of_medians_to_two_places() -> None:
    baseline = summarise("sandbox", "bare", [1500, 2500, 3500])
    measured = summarise("sandbox", "venue", HUNDRED).compared_with(baseline)
    # 51.0 / 2.5
    assert measured.ratio == Decimal("20.40")
    assert measured.baseline == "bare"
    # Everything else is the measured case's own.
    assert (measured.bench, measured.case, measured.n) == ("sandbox", "venue", 100)
    assert measured.p50_us == Decimal("51.0")
    assert measured.p99_us == Decimal("99.0")
    assert measured.ops_per_s == Decimal("19802.0")


def test_compared_with_rounds_the_ratio_half_even() -> None:
    baseline = Summary("b", "base", 1, Decimal(8), Decimal(8), Decimal(1))
    # 10.04 / 8 = 1.255 exactly: the tie goes to the even 1.26.
    measured = Summary("b", "m", 1, Decimal("10.04"), Decimal(11), Decimal(1))
    assert measured.compared_with(baseline).ratio == Decimal("1.26")
    # 9.96 / 8 = 1.245 exactly: the tie goes to the even 1.24.
    odd = Summary("b", "m", 1, Decimal("9.96"), Decimal(11), Decimal(1))
    assert odd.compared_with(baseline).ratio == Decimal("1.24")


def test_a_summary_prints_exactly_the_design_keys_as_json_numbers() -> None:
    line = json_line(summarise("sandbox", "bare_starlette_json", [1500, 2500, 3500]).as_json())
    assert "\n" not in line
    decoded = exact(line)
    assert list(decoded) == DESIGN_KEYS
    assert decoded == {
        "bench": "sandbox",
        "case": "bare_starlette_json",
        "n": 3,
        "p50_us": Decimal("2.5"),
        "p99_us": Decimal("3.5"),
        "ops_per_s": 400000,
    }
    # Numbers, never strings; whole figures without a trailing ".0".
    assert '"p50_us": 2.5' in line
    assert line.endswith('"ops_per_s": 400000}')


def test_a_compared_summary_adds_the_baseline_and_the_ratio() -> None:
    baseline = summarise("sandbox", "bare", [1500, 2500, 3500])
    line = json_line(summarise("sandbox", "venue", HUNDRED).compared_with(baseline).as_json())
    decoded = exact(line)
    assert list(decoded) == [*DESIGN_KEYS, "baseline", "ratio"]
    assert decoded["baseline"] == "bare"
    assert decoded["ratio"] == Decimal("20.40")
    assert isinstance(decoded["n"], int)
    for key in ("p50_us", "p99_us", "ops_per_s"):
        assert isinstance(decoded[key], int), key
    assert '"ratio": 20.40}' in line


def test_a_whole_ratio_is_written_as_an_integer() -> None:
    base = Summary("b", "base", 1, Decimal(4), Decimal(4), Decimal(1))
    twice = Summary("b", "m", 1, Decimal(8), Decimal(8), Decimal(1)).compared_with(base)
    assert twice.as_json()["ratio"] == 2
    assert json_line(twice.as_json()).endswith('"baseline": "base", "ratio": 2}')


def test_a_summary_without_a_ratio_names_no_baseline() -> None:
    summary = Summary("b", "m", 1, Decimal(1), Decimal(1), Decimal(1), baseline="base")
    assert list(summary.as_json()) == DESIGN_KEYS


def test_json_line_writes_decimals_in_plain_notation_and_escapes_text() -> None:
    line = json_line(
        {"tiny": Decimal("0.00001"), "big": Decimal("1E+3"), "case": 'a "quoted" case', "n": 2}
    )
    assert line == '{"tiny": 0.00001, "big": 1000, "case": "a \\"quoted\\" case", "n": 2}'
    assert exact(line)["case"] == 'a "quoted" case'
