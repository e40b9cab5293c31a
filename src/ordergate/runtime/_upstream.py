"""The upstream a run talks to: Robinhood (or any URL) signed in, or an embedded sandbox.

The embedded sandbox is the sandbox venue on a free loopback port, for this run only, with a
fresh token minted in-process and kept in a private temporary directory that is removed when
the run ends. It is what a run uses with ``--sandbox``, or when nothing else is configured.

A run that may need no call at all (``ordergate status`` over a paper book with nothing to
price) asks for it ``deferred``: the venue then starts on the first call that needs it, and
the agentic account's numbers — the one thing every run reads from it — are known beforehand
(``EMBEDDED_ACCOUNT`` and ``EMBEDDED_RHS_ACCOUNT``: the venue's answer for its default seed,
pinned by a test).

When ``ordergate login --crypto-api`` stored a Crypto Trading REST API key in the home, the
upstream carries the REST client too (``crypto_rest``): at ``ORDERGATE_CRYPTO_REST_URL`` or
Robinhood's, or at the embedded sandbox, which registers the stored key's public key under
a fresh API key of its own (so the same private key signs there). A damaged key file stops
the run (``CryptoKeyRequired``, naming the file) rather than running without the rail the
owner configured. A deferred run, which places nothing, opens no REST client.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ordergate.client import Config, DeferredCaller, Robinhood, TokenSet
from ordergate.client import write_token_file as write_tokens
from ordergate.client.crypto_rest import DEFAULT_REST_URL, ApiKey, CryptoRest, read_key_file
from ordergate.core import Clock, Secret
from ordergate.runtime._settings import Settings, UpstreamChoice

if TYPE_CHECKING:
    from ordergate.sandbox import Sandbox, SandboxConfig

__all__ = [
    "EMBEDDED_ACCOUNT",
    "EMBEDDED_RHS_ACCOUNT",
    "Upstream",
    "embedded_venue",
    "open_upstream",
]

# The embedded venue's agentic account (its default seed's): a deferred run knows it unasked.
EMBEDDED_ACCOUNT = "958289285"
EMBEDDED_RHS_ACCOUNT = "4037440089"


@dataclass(frozen=True, slots=True)
class Upstream:
    rh: Robinhood
    choice: UpstreamChoice
    url: str | None  # None: the embedded venue of a deferred run, not started (yet)
    account: str | None = None  # the agentic account, when it is known without asking
    rhs_account: str | None = None  # and its rhs account number
    account_type: str | None = None  # and its type and option level, when known unasked
    option_level: int | None = None
    deferred: DeferredCaller | None = None  # a deferred run's caller: ``.opened`` once called
    crypto_rest: CryptoRest | None = None  # the REST rail, when a key is stored

    @property
    def note(self) -> str:
        rail = "" if self.crypto_rest is None else f"; crypto REST rail: {self.crypto_rest.origin}"
        if self.choice is UpstreamChoice.SANDBOX:
            if self.url is None:
                return (
                    "upstream: the embedded sandbox venue, started if a call needs it"
                    " (no real account)"
                )
            return f"upstream: the embedded sandbox venue at {self.url} (no real account){rail}"
        return f"upstream: {self.url}{rail}"


@asynccontextmanager
async def open_upstream(
    settings: Settings, *, clock: Clock, deferred: bool = False
) -> AsyncIterator[Upstream]:
    """Connect to the configured upstream for the block. Raises ``LoginRequired`` when a
    signed-in upstream's tokens are missing or dead. ``deferred``: the embedded sandbox venue
    starts only when a call needs it (other upstreams connect at once)."""
    choice = settings.upstream_choice
    if choice is UpstreamChoice.SANDBOX:
        if deferred:
            async with _deferred_sandbox(clock, settings) as upstream:
                yield upstream
            return
        async with _embedded_sandbox(clock, settings) as upstream:
            yield upstream
        return
    url = settings.upstream_url
    if url is None:
        # Where ``ordergate login`` signed in, as the token file records it (never a guess).
        url = Config.signed_in(settings.token_file).url
    from ordergate.client import connect  # the MCP SDK: only once a session is opened

    async with (
        connect(Config(url=url, token_file=settings.token_file), clock=clock) as rh,
        _crypto_rest(settings, settings.crypto_rest_url or DEFAULT_REST_URL) as rest,
    ):
        yield Upstream(rh, choice, url, crypto_rest=rest)


@asynccontextmanager
async def _crypto_rest(
    settings: Settings, base_url: str, *, sandbox: Sandbox | None = None
) -> AsyncIterator[CryptoRest | None]:
    """The REST client on the stored key (``None`` without one)."""
    path = settings.crypto_key_file
    if not path.exists():
        yield None
        return
    key = read_key_file(path)
    if sandbox is not None:
        issued = sandbox.rest_keys.register(key.public_key)
        key = ApiKey(Secret(issued["api_key"]), key.private_key)
    async with CryptoRest(key=key, base_url=base_url) as rest:
        yield rest


def embedded_config(settings: Settings | None) -> SandboxConfig:
    """The embedded venue's configuration: a free loopback port, its agentic account as
    ``settings`` set it up (``ORDERGATE_SANDBOX_ACCOUNT_TYPE`` …)."""
    from ordergate.sandbox import SandboxConfig

    config = SandboxConfig(host="127.0.0.1", port=0)
    if settings is not None and settings.sandbox_account_type is not None:
        config = replace(config, account_type=settings.sandbox_account_type)
    if settings is not None and settings.sandbox_option_level is not None:
        config = replace(config, option_level=settings.sandbox_option_level)
    return config


@contextmanager
def embedded_venue(clock: Clock, settings: Settings | None = None) -> Iterator[Sandbox]:
    """The sandbox venue on a free loopback port for the block (nobody signed in to it);
    its agentic account and fault knobs as ``settings`` set them up
    (``ORDERGATE_SANDBOX_ACCOUNT_TYPE`` …, ``ORDERGATE_SANDBOX_FAULTS``)."""
    from ordergate.sandbox import SandboxServer

    server = SandboxServer(embedded_config(settings), clock=clock)
    try:
        sandbox = server.start()
        if settings is not None and settings.sandbox_faults is not None:
            sandbox.venue.faults.update(json.loads(settings.sandbox_faults))
        yield sandbox
    finally:
        server.stop()


@asynccontextmanager
async def _embedded_sandbox(clock: Clock, settings: Settings) -> AsyncIterator[Upstream]:
    from ordergate.sandbox.oauth import SHARED_CLIENT_ID

    with embedded_venue(clock, settings) as sandbox:
        base_url = sandbox.base_url
        pair = sandbox.oauth.mint_tokens()
        with tempfile.TemporaryDirectory(prefix="ordergate-sandbox-") as directory:
            token_file = Path(directory) / "tokens.json"
            write_tokens(
                token_file,
                TokenSet(
                    access_token=pair.access_token,
                    refresh_token=pair.refresh_token,
                    expires_at=None,
                    token_endpoint=base_url + "/oauth2/token/",
                    client_id=SHARED_CLIENT_ID,
                    resource=sandbox.mcp_url,
                    scope="internal",
                    server=sandbox.mcp_url,
                ),
            )
            url = sandbox.mcp_url
            from ordergate.client import connect

            async with (
                connect(Config(url=url, token_file=token_file), clock=clock) as rh,
                _crypto_rest(settings, base_url, sandbox=sandbox) as rest,
            ):
                yield Upstream(rh, UpstreamChoice.SANDBOX, url, crypto_rest=rest)


@asynccontextmanager
async def _deferred_sandbox(clock: Clock, settings: Settings) -> AsyncIterator[Upstream]:
    async with AsyncExitStack() as started:

        async def start() -> Robinhood:
            upstream = await started.enter_async_context(_embedded_sandbox(clock, settings))
            return upstream.rh

        caller = DeferredCaller(start)
        config = embedded_config(settings)
        yield Upstream(
            Robinhood(caller),
            UpstreamChoice.SANDBOX,
            None,
            account=EMBEDDED_ACCOUNT,
            rhs_account=EMBEDDED_RHS_ACCOUNT,
            account_type=config.account_type,
            option_level=config.option_level,
            deferred=caller,
        )
