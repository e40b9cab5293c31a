"""A venue on loopback and a plain JSON-RPC caller signed in to it, for the typed-client tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import httpx2
from venue_testkit import VenueClient, running_venue

from ordergate.client._jsonrpc import JsonRpcCaller


class BearerAuth(httpx2.Auth):
    def __init__(self, token: str) -> None:
        self._token = token

    def auth_flow(self, request: httpx2.Request) -> Any:
        request.headers["authorization"] = f"Bearer {self._token}"
        yield request


@contextmanager
def venue(**overrides: Any) -> Iterator[VenueClient]:
    """The venue (stepped clock) with a synchronous admin/test client signed in."""
    with running_venue(**overrides) as client:
        yield client


@asynccontextmanager
async def json_rpc_caller(client: VenueClient) -> AsyncIterator[JsonRpcCaller]:
    """A ``Caller`` for typed subclients, speaking plain JSON-RPC to ``client``'s venue."""
    assert client.token is not None
    async with httpx2.AsyncClient(auth=BearerAuth(client.token), timeout=30.0) as http:
        yield JsonRpcCaller(http, client.mcp_url)


class ScriptedCaller:
    """A ``Caller`` that answers from a script instead of a venue, recording every call.

    ``answers`` maps a tool name to its ``data``, or to a function of the arguments that
    returns it (or raises); a tool not in the script fails the test.
    """

    def __init__(self, answers: dict[str, Any]) -> None:
        self.answers = answers
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def call(self, name: str, arguments: Any) -> Any:
        self.calls.append((name, dict(arguments)))
        assert name in self.answers, f"unscripted tool {name}"
        answer = self.answers[name]
        return answer(dict(arguments)) if callable(answer) else answer
