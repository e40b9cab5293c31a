"""An MCP client's side of a stdio server: JSON-RPC lines written to the child's stdin and
read from its stdout, every wait bounded; stderr kept for the failure report."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from collections.abc import Sequence
from typing import IO, Any

BOUND_S = 30.0


class StdioPeer:
    def __init__(self, command: Sequence[str], *, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            list(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        assert self.process.stdin and self.process.stdout and self.process.stderr
        self._lines: queue.Queue[bytes] = queue.Queue()
        self._stderr: list[str] = []
        self._next_id = 0
        self._readers = [
            threading.Thread(target=self._pump, args=(self.process.stdout,), daemon=True),
            threading.Thread(target=self._keep, args=(self.process.stderr,), daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    def _pump(self, stream: IO[bytes]) -> None:
        for line in stream:
            self._lines.put(line)

    def _keep(self, stream: IO[bytes]) -> None:
        for line in stream:
            self._stderr.append(line.decode(errors="replace"))

    @property
    def stderr(self) -> str:
        return "".join(self._stderr)

    def send(self, message: dict[str, Any]) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        stdin.write(json.dumps(message).encode() + b"\n")
        stdin.flush()

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send a request; its answer (messages without its id in between are dropped)."""
        self._next_id += 1
        ident = self._next_id
        self.send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params or {}})
        while True:
            try:
                line = self._lines.get(timeout=BOUND_S)
            except queue.Empty:
                raise AssertionError(
                    f"no answer to {method} in {BOUND_S} s:\n{self.stderr}"
                ) from None
            message: dict[str, Any] = json.loads(line)
            if message.get("id") == ident and "method" not in message:
                return message

    def notify(self, method: str) -> None:
        self.send({"jsonrpc": "2.0", "method": method})

    def close(self) -> None:
        """Close stdin (a stdio server's cue to exit), then stop it, bounded."""
        stdin = self.process.stdin
        if stdin is not None and not stdin.closed:
            stdin.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        for reader in self._readers:
            reader.join(timeout=5)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
