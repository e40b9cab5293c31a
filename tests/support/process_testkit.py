"""A server run as a child process for the length of a test: started, its banner read from
stderr (bounded), and stopped (terminate, then kill) whatever the test did — the benchmarks'
own ``started``, with the bounds the tests use."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from ordergate.bench._process import started

BANNER_BOUND_S = 90.0
"""A fresh interpreter importing the gateway took over 30 s on a loaded 2-core machine with
the suite's workers beside it; the bound only ends a wait that would never end."""
EXIT_BOUND_S = 15.0


@contextmanager
def serving_process(
    command: Sequence[str], marker: bytes, *, env: dict[str, str] | None = None
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """``command`` running, with its stderr up to ``marker``; stopped when the block ends."""
    with started(
        command, ready_marker=marker.decode(), timeout_s=BANNER_BOUND_S, env=env
    ) as running:
        yield running
