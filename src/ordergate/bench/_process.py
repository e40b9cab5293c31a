"""Servers under measurement run in their own processes, so client and server never share a GIL."""

from __future__ import annotations

import os
import selectors
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

__all__ = [
    "VENUE_START",
    "free_port",
    "read_until",
    "server_process",
    "started",
    "venue_process",
]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


# The venue under measurement: a stepped clock inside a regular session, a fixed seed.
VENUE_START = "2026-12-01T15:00:00Z"


@contextmanager
def venue_process(port: int) -> Iterator[subprocess.Popen[bytes]]:
    """``ordergate sandbox serve`` on ``port`` in its own process, until the block ends."""
    command = [
        sys.executable, "-m", "ordergate", "sandbox", "serve", "--port", str(port),
        "--clock", "stepped", "--start", VENUE_START, "--seed", "7",
    ]  # fmt: skip
    with server_process(command, ready_marker="Press Ctrl+C") as process:
        yield process


@contextmanager
def server_process(
    command: Sequence[str], *, ready_marker: str, timeout_s: float = 30.0
) -> Iterator[subprocess.Popen[bytes]]:
    """Start ``command``; yield once its stderr shows ``ready_marker``; stop it afterwards."""
    with started(command, ready_marker=ready_marker, timeout_s=timeout_s) as (process, _):
        yield process


@contextmanager
def started(
    command: Sequence[str],
    *,
    ready_marker: str,
    timeout_s: float = 30.0,
    env: dict[str, str] | None = None,
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """``command`` running, with its stderr up to ``ready_marker``; stopped (terminate, then
    kill) when the block ends."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    try:
        yield process, read_until(process, ready_marker.encode(), timeout_s)
    finally:
        if process.poll() is None:
            process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        if process.stderr is not None:
            process.stderr.close()


def read_until(process: subprocess.Popen[bytes], marker: bytes, timeout_s: float) -> str:
    """Stderr up to and including ``marker``; ``RuntimeError`` when it does not come in time
    or the process ends first."""
    assert process.stderr is not None
    deadline = time.monotonic() + timeout_s
    seen = b""
    with selectors.DefaultSelector() as selector:
        selector.register(process.stderr, selectors.EVENT_READ)
        while marker not in seen:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or process.poll() is not None:
                raise RuntimeError(f"server did not start: {_tail(seen)}")
            if selector.select(timeout=remaining):
                # Raw reads: a buffered readline could swallow the marker into a buffer
                # that select() cannot see.
                chunk = os.read(process.stderr.fileno(), 4096)
                if not chunk:
                    raise RuntimeError(
                        f"stderr closed early: {seen.decode(errors='replace')[-800:]}"
                    )
                seen += chunk
    return seen.decode(errors="replace")


def _tail(seen: bytes) -> str:
    return seen.decode(errors="replace")[-800:]
