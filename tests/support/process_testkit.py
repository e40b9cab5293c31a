"""A server run as a child process for the length of a test: started, its banner read from
stderr (bounded), and stopped (terminate, then kill) whatever the test did."""

from __future__ import annotations

import os
import selectors
import subprocess
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import pytest

BANNER_BOUND_S = 30.0
EXIT_BOUND_S = 15.0


def read_until(process: subprocess.Popen[bytes], marker: bytes, timeout_s: float) -> str:
    """Stderr up to and including ``marker``, read raw so select() sees every byte."""
    assert process.stderr is not None
    deadline = time.monotonic() + timeout_s
    seen = b""
    with selectors.DefaultSelector() as selector:
        selector.register(process.stderr, selectors.EVENT_READ)
        while marker not in seen:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or process.poll() is not None:
                pytest.fail(f"no banner from the server: {seen.decode(errors='replace')[-800:]}")
            if selector.select(timeout=remaining):
                chunk = os.read(process.stderr.fileno(), 4096)
                if not chunk:
                    pytest.fail(f"stderr closed early: {seen.decode(errors='replace')[-800:]}")
                seen += chunk
    return seen.decode()


@contextmanager
def serving_process(
    command: Sequence[str], marker: bytes, *, env: dict[str, str] | None = None
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """``command`` running, with its stderr up to ``marker``; stopped when the block ends."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    try:
        yield process, read_until(process, marker, BANNER_BOUND_S)
    finally:
        if process.poll() is None:
            process.terminate()
        try:
            process.wait(timeout=EXIT_BOUND_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=EXIT_BOUND_S)
        assert process.stderr is not None
        process.stderr.close()
