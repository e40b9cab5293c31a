"""Prometheus metrics at ``/metrics``: calls forwarded, refusals by reason, upstream latency.

One registry per gateway app (never the process-global one), so two gateways in one process
(tests) do not share counts. Labels are tool names and fixed reason codes only: never an
identity, an account or a token.
"""

from __future__ import annotations

import time
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from starlette.requests import Request
from starlette.responses import Response

from ordergate.execution import Guard
from ordergate.gateway.mcp import GatewayBackend
from ordergate.inventory import load_inventory

__all__ = ["GatewayMetrics"]

_LABELS_KEPT = 1024  # names an agent makes up are looked up each time, never kept


class GatewayMetrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.calls = Counter(
            "ordergate_gateway_upstream_calls",
            "Calls forwarded to the upstream, by tool and outcome.",
            ["tool", "outcome"],
            registry=self.registry,
        )
        self.refusals = Counter(
            "ordergate_gateway_refusals",
            "Requests refused before reaching a route (rate limit, body size), by reason.",
            ["reason"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "ordergate_gateway_upstream_seconds",
            "Upstream latency of forwarded calls.",
            ["tool"],
            registry=self.registry,
        )

        # Each label set's child, looked up once: ``labels()`` takes a lock and builds a key
        # on every call, and the label sets are few and fixed (known tool names, two outcomes).
        self._timings: dict[str, Any] = {}
        self._counts: dict[tuple[str, str], Any] = {}

    def timing(self, tool: str) -> Any:
        child = self._timings.get(tool)
        if child is None:
            child = self._timings[tool] = self.latency.labels(tool=tool)
        return child

    def count(self, tool: str, outcome: str) -> Any:
        child = self._counts.get((tool, outcome))
        if child is None:
            child = self._counts[(tool, outcome)] = self.calls.labels(tool=tool, outcome=outcome)
        return child

    def refused(self, reason: str) -> None:
        self.refusals.labels(reason=reason).inc()

    def observe(self, backend: GatewayBackend) -> GatewayBackend:
        """``backend`` with its upstream calls counted and timed."""
        return _Observed(backend, self)

    async def endpoint(self, request: Request) -> Response:
        return Response(generate_latest(self.registry), media_type=CONTENT_TYPE_LATEST)


class _Observed:
    def __init__(self, inner: GatewayBackend, metrics: GatewayMetrics) -> None:
        self._inner = inner
        self._metrics = metrics
        self._labels: dict[str, str] = {}

    async def upstream_tools(self, connection_id: str) -> list[dict[str, Any]]:
        tools: list[dict[str, Any]] = await self._timed(
            "tools/list", self._inner.upstream_tools(connection_id)
        )
        return tools

    async def forward(self, connection_id: str, name: str, arguments: dict[str, Any]) -> Any:
        return await self._timed(
            self._label(name), self._inner.forward(connection_id, name, arguments)
        )

    def _label(self, name: str) -> str:
        """The tool's label: only known tool names become label values (a label set must
        stay small and ours); looked up once per name."""
        label = self._labels.get(name)
        if label is None:
            label = name if name in load_inventory() else "other"
            if len(self._labels) < _LABELS_KEPT:
                self._labels[name] = label
        return label

    async def guard(self, connection_id: str) -> Guard:
        return await self._inner.guard(connection_id)

    def open_guard(self, connection_id: str) -> Guard | None:
        return self._inner.open_guard(connection_id)

    def identity(self, connection_id: str) -> str:
        return self._inner.identity(connection_id)

    async def disconnect(self, connection_id: str) -> None:
        await self._inner.disconnect(connection_id)

    async def _timed(self, tool: str, call: Any) -> Any:
        started = time.perf_counter()
        outcome = "error"
        try:
            result = await call
            outcome = "ok"
            return result
        finally:
            self._metrics.timing(tool).observe(time.perf_counter() - started)
            self._metrics.count(tool, outcome).inc()
