"""``DeferredCaller`` opens its connection at the first call, once however many calls race for
it, and a failed open is tried again by the next call (nothing is assumed opened)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio
import pytest

from ordergate.client import DeferredCaller, Robinhood, TransportError


class _Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def call(self, name: str, arguments: Mapping[str, Any]) -> Any:
        self.calls.append((name, dict(arguments)))
        return {"called": name}

    async def request(self, method: str, params: Mapping[str, Any] | None = None) -> Any:
        self.calls.append((method, dict(params or {})))
        return {"tools": [{"name": "get_quotes"}]}


@pytest.mark.anyio
async def test_nothing_opens_until_a_call_and_racing_calls_open_once() -> None:
    inner = _Recorder()
    opens = 0

    async def opener() -> Robinhood:
        nonlocal opens
        opens += 1
        await anyio.lowlevel.checkpoint()
        return Robinhood(inner)

    deferred = DeferredCaller(opener)
    rh = Robinhood(deferred)
    assert not deferred.opened and opens == 0
    async with anyio.create_task_group() as group:
        for symbol in ("SPY", "QQQ", "IWM"):
            group.start_soon(rh.call, "get_quotes", {"symbols": [symbol]})
    assert opens == 1 and deferred.opened
    assert sorted(args["symbols"][0] for _, args in inner.calls) == ["IWM", "QQQ", "SPY"]
    assert await rh.list_tools() == [{"name": "get_quotes"}]
    assert inner.calls[-1] == ("tools/list", {})


@pytest.mark.anyio
async def test_a_failed_open_is_not_remembered_and_the_next_call_opens_again() -> None:
    inner = _Recorder()
    attempts = 0

    async def opener() -> Robinhood:
        nonlocal attempts
        attempts += 1
        if attempts == 1:
            raise TransportError("no answer from the venue at http://127.0.0.1:9/mcp")
        return Robinhood(inner)

    deferred = DeferredCaller(opener)
    with pytest.raises(TransportError, match=r"127\.0\.0\.1:9"):
        await deferred.call("get_accounts", {})
    assert not deferred.opened
    assert await deferred.call("get_accounts", {}) == {"called": "get_accounts"}
    assert attempts == 2 and deferred.opened


@pytest.mark.anyio
async def test_a_connection_that_cannot_send_requests_says_so() -> None:
    class _CallsOnly:
        async def call(self, name: str, arguments: Mapping[str, Any]) -> Any:
            return None

    async def opener() -> Robinhood:
        return Robinhood(_CallsOnly())

    with pytest.raises(TypeError, match="no request"):
        await DeferredCaller(opener).request("tools/list")
