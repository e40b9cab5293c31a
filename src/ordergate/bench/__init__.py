"""``ordergate bench``: measurements against a baseline taken in the same run."""

from ordergate.bench._registry import BENCHES, run_bench
from ordergate.bench._stats import Summary, json_line, summarise

__all__ = ["BENCHES", "Summary", "json_line", "run_bench", "summarise"]
