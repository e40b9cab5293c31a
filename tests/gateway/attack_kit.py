"""The gateway as ``ordergate serve --sandbox`` runs it, with a caller key on the host, for
tests that attack it over loopback HTTP as an agent on the owner's machine would: with an
OAuth access token of a connection of its own, a caller token, or nothing at all."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx2
import pytest
from gateway_testkit import OPEN, sandbox_gateway

from ordergate.callers import CallerKey, mint
from ordergate.core import Secret
from ordergate.gateway._config import GatewayConfig
from ordergate.gateway._minting import mint_owner_tokens
from ordergate.gateway._serve import GatewayServer

MASTER = "attack-kit-master-secret-" + "q" * 24
BOUND_S = 30


@dataclass
class Attacked:
    url: str
    server: GatewayServer
    key: CallerKey
    http: httpx2.Client = field(default_factory=lambda: httpx2.Client(timeout=BOUND_S))

    def access_token(self, profile: str = "trader") -> str:
        """A new connection's access token, as the consent page would have given it."""
        assert self.server.auth is not None
        pair = mint_owner_tokens(
            self.server.auth.store, client_name="attack-kit", resource=self.url + "/mcp",
            profile=profile,
        )  # fmt: skip
        return pair.access_token

    def caller_token(self, caller: str = "bot", profile: str = "trader") -> str:
        return mint(
            self.key, caller=caller, profile=profile, ttl=timedelta(minutes=15), now=OPEN
        ).reveal()

    def post(self, path: str, **kwargs: Any) -> httpx2.Response:
        return self.http.post(self.url + path, **kwargs)

    def get(self, path: str, **kwargs: Any) -> httpx2.Response:
        return self.http.get(self.url + path, **kwargs)


@contextmanager
def attacked_gateway(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **config: Any
) -> Iterator[Attacked]:
    """The gateway on a free loopback port; ``config`` overrides ``GatewayConfig`` fields."""
    key = CallerKey.derive(Secret(MASTER))
    server = sandbox_gateway(
        tmp_path, monkeypatch, config=GatewayConfig(port=0, caller_key=key, **config)
    )
    with server as url:
        attacked = Attacked(url=url, server=server, key=key)
        try:
            yield attacked
        finally:
            attacked.http.close()
