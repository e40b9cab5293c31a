"""A venue on loopback and a plain JSON-RPC caller signed in to it, for the typed-client tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import httpx2
import pytest
from pydantic import BaseModel, ValidationError
from venue_testkit import START, VenueClient, running_venue

from ordergate._serving import BackgroundServer, bind_socket
from ordergate.client import TokenSet, write_token_file
from ordergate.client._jsonrpc import JsonRpcCaller
from ordergate.client._models import field_name
from ordergate.core import Secret, SteppedClock
from ordergate.sandbox import SandboxConfig, build_sandbox
from ordergate.sandbox.oauth import SHARED_CLIENT_ID

W = TypeVar("W")


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


@contextmanager
def wrapped_venue(wrap: Callable[[Any], W], **settings: Any) -> Iterator[tuple[VenueClient, W]]:
    """A venue (stepped clock) served behind the ASGI wrapper ``wrap(app)`` (a recorder, a
    counter), with a signed-in client and the wrapper to inspect."""
    config = SandboxConfig(port=0, seed=7, **settings)
    sock = bind_socket("127.0.0.1", 0)
    base_url = config.base_url(sock.getsockname()[1])
    sandbox = build_sandbox(config, base_url=base_url, clock=SteppedClock(start=START))
    wrapper = wrap(sandbox.app)
    with BackgroundServer(wrapper, sock), VenueClient(base_url) as client:
        client.sign_in()
        yield client, wrapper


def write_minted(
    venue: VenueClient, path: Path, *, expires_at: datetime | None, refresh: str | None = None
) -> TokenSet:
    """A signed-in token file of fresh venue tokens, as ``login`` would leave it."""
    minted = venue.admin("tokens", {})
    tokens = TokenSet(
        access_token=Secret(minted["access_token"]),
        refresh_token=Secret(refresh or minted["refresh_token"]),
        expires_at=expires_at,
        token_endpoint=venue.base_url + "/oauth2/token/",
        client_id=SHARED_CLIENT_ID,
        resource=venue.mcp_url,
        scope="internal",
        server=venue.mcp_url,
    )
    write_token_file(path, tokens)
    return tokens


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


class StubCaller:
    """A ``Caller`` that answers each call with the next of ``answers`` (the last one again
    once they run out), recording every call."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def call(self, name: str, arguments: Any) -> Any:
        self.calls.append((name, dict(arguments)))
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]


def refused_loc(error: ValidationError) -> tuple[Any, ...]:
    """Where a request model's first refusal is located: ``("legs", 1, "side")``."""
    return tuple(error.errors()[0]["loc"])


def refusal_loc(model: type[BaseModel], fields: dict[str, Any]) -> tuple[Any, ...]:
    """Where ``model`` refuses ``fields``; the test fails if it accepts them."""
    with pytest.raises(ValidationError) as raised:
        model.model_validate(fields)
    return refused_loc(raised.value)


def refused_field(error: ValidationError) -> str:
    """The first refusal's location as a field name: ``"legs[1].side"``."""
    return field_name(refused_loc(error))


def account_number(client: VenueClient) -> str:
    """The venue's agentic brokerage account number."""
    return str(client.agentic_account()["account_number"])


def rhs_account_number(client: VenueClient) -> str:
    """The venue's agentic crypto (rhs) account number."""
    return str(client.agentic_account()["rhs_account_number"])
