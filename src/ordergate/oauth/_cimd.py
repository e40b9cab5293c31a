"""draft-ietf-oauth-client-id-metadata-document, OAuth Client ID Metadata Document (CIMD).

A ``client_id`` that is an ``https`` URL names the client's metadata, published at that URL:
no registration first (the MCP specification's preferred way for a client to identify itself
since 2025-11-25; RFC 7591 registration is kept beside it). ``ClientDocuments.client`` turns
such an id into a ``Client``, or refuses it with a ``DocumentRefused`` whose ``code`` says why.

The URL (``metadata_url_problem``): ``https``, a host, a path other than ``/``, no dot
segments, user info or fragment, at most ``MAX_URL`` characters.

Fetching it is a request this server makes on a stranger's word, so it is fenced (the draft's
security considerations, SSRF):

- the host's addresses are looked up once, and every one must be a public address — never
  private, loopback, link-local, multicast, reserved or unspecified — unless the owner allowed
  them (``allow_private``); the connection goes to the address checked, so a name that
  answers differently the second time is never asked again;
- TLS, verified against the host name (``ssl_context``: the system's trust store, or a trust
  path the owner gives);
- one ``GET`` over HTTP/1.1 (``h11``), all of it within ``timeout`` seconds; a redirect is
  refused, not followed, as is any status but 200, a body over ``max_bytes`` (5 KB, the
  draft's suggestion) and a body that is not a JSON object;
- the document is kept as its ``Cache-Control`` says (``max-age``, at most ``MAX_CACHE``;
  ``no-store`` and ``no-cache``: not kept), else ``DEFAULT_CACHE``; a refusal is not kept.

The document (``client_from_document``): ``client_id`` equal to the URL, character for
character; ``redirect_uris`` a non-empty list of at most ten, each allowed by the RFC 8252
rule (``redirect_uri_problem``); a public client (no ``client_secret``, and a
``token_endpoint_auth_method`` of ``none`` when given); ``client_name`` and
``application_type`` checked as at registration. The consent page names the client by that
name and the URL's host.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import socket
import ssl
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import anyio
import h11

from ordergate.core import Clock
from ordergate.oauth._rfc6749 import Refusal
from ordergate.oauth._rfc7591 import (
    RegistrationRefused,
    application_type,
    client_name,
    redirect_uris,
)
from ordergate.oauth._storage import (
    Authorization,
    AuthorizationStore,
    Client,
    CodeExchange,
    ConsentTicket,
    IssuedTokens,
)

__all__ = [
    "DEFAULT_CACHE",
    "MAX_CACHE",
    "MAX_DOCUMENT_BYTES",
    "MAX_URL",
    "ClientDocuments",
    "DocumentRefused",
    "WithClientDocuments",
    "client_from_document",
    "is_metadata_url",
    "metadata_url_problem",
]

logger = logging.getLogger(__name__)

MAX_URL = 2000
MAX_DOCUMENT_BYTES = 5120
DEFAULT_CACHE = timedelta(minutes=5)
MAX_CACHE = timedelta(hours=24)
_TIMEOUT_S = 5.0
_MAX_HEAD = 16384

Resolver = Callable[[str, int], Awaitable[Sequence[str]]]
"""The addresses of a host name (``host``, ``port``), as text."""


class DocumentRefused(Exception):
    """A client id metadata document that is not used: ``code`` (``url``, ``address``,
    ``fetch``, ``timeout``, ``redirect``, ``status``, ``too_big``, ``not_json``, ``client_id``,
    ``redirect_uris``, ``not_public``, ``client_metadata``) and a sentence without secrets."""

    def __init__(self, code: str, reason: str) -> None:
        self.code = code
        self.reason = reason
        super().__init__(f"{code}: {reason}")


def is_metadata_url(client_id: str) -> bool:
    """Whether ``client_id`` claims to be a metadata document's URL (it starts ``https://``);
    ``metadata_url_problem`` says whether it is a usable one."""
    return client_id.startswith("https://")


def metadata_url_problem(url: str) -> str | None:
    """Why ``url`` cannot be a client id metadata document's URL, or ``None``."""
    if len(url) > MAX_URL:
        return f"the URL is over {MAX_URL} characters"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not one
    except ValueError:
        return "the URL does not parse"
    if parts.scheme != "https" or not parts.hostname:
        return "the URL must be https with a host"
    if parts.username is not None or parts.password is not None:
        return "the URL must not carry user info"
    if parts.fragment or "#" in url:
        return "the URL must not have a fragment"
    if not parts.path or parts.path == "/":
        return "the URL must have a path"
    if any(segment in (".", "..") for segment in parts.path.split("/")):
        return "the URL must not have dot segments"
    if any(ord(ch) <= 0x20 or ord(ch) >= 0x7F for ch in url):
        return "the URL must be printable ASCII"
    return None


def client_from_document(url: str, document: object) -> Client:
    """The client ``document`` (fetched from ``url``) describes; ``DocumentRefused``."""
    if not isinstance(document, dict):
        raise DocumentRefused("not_json", "the document is not a JSON object")
    if document.get("client_id") != url:
        raise DocumentRefused("client_id", "the document's client_id is not its URL")
    if "client_secret" in document or "client_secret_expires_at" in document:
        raise DocumentRefused("not_public", "the document carries a client secret")
    method = document.get("token_endpoint_auth_method")
    if method is not None and method != "none":
        raise DocumentRefused("not_public", "token_endpoint_auth_method must be none")
    try:
        uris = redirect_uris(document)
    except RegistrationRefused as refused:
        raise DocumentRefused("redirect_uris", refused.description) from None
    try:
        name = client_name(document)
        application_type(document, uris)
    except RegistrationRefused as refused:
        raise DocumentRefused("client_metadata", refused.description) from None
    host = urlsplit(url).hostname or ""
    shown = f"{name} ({host})" if name else host
    return Client(client_id=url, client_name=shown, redirect_uris=uris)


@dataclass(frozen=True, slots=True)
class _Kept:
    client: Client
    until: datetime


async def _resolve(host: str, port: int) -> Sequence[str]:
    infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


def is_public_address(address: str) -> bool:
    """Whether ``address`` (an IP, a zone allowed) is a global unicast one: not private,
    loopback, link-local or multicast (an IPv4-mapped IPv6 address judged as its IPv4)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


class ClientDocuments:
    """Clients named by their metadata documents' URLs, fetched as the module says and kept
    per their caching headers. ``allow_private``: the owner allows documents on private,
    loopback and link-local addresses; ``ssl_context``: whom TLS trusts (default: the
    system's store); ``resolve``: host names to addresses (default: the system's)."""

    def __init__(
        self,
        *,
        clock: Clock,
        timeout: float = _TIMEOUT_S,
        max_bytes: int = MAX_DOCUMENT_BYTES,
        allow_private: bool = False,
        ssl_context: ssl.SSLContext | None = None,
        resolve: Resolver | None = None,
    ) -> None:
        self._clock = clock
        self._timeout = timeout
        self._max_bytes = max_bytes
        self._allow_private = allow_private
        self._ssl = ssl_context or ssl.create_default_context()
        self._resolve = resolve or _resolve
        self._kept: dict[str, _Kept] = {}

    async def client(self, url: str) -> Client:
        """The client whose metadata document is at ``url``; ``DocumentRefused``."""
        kept = self._kept.get(url)
        now = self._clock.now()
        if kept is not None and now < kept.until:
            return kept.client
        self._kept.pop(url, None)
        problem = metadata_url_problem(url)
        if problem is not None:
            raise DocumentRefused("url", problem)
        body, keep_for = await self._fetch(url)
        try:
            document: Any = json.loads(body)
        except (ValueError, RecursionError):
            raise DocumentRefused("not_json", "the document is not JSON") from None
        client = client_from_document(url, document)
        if keep_for > timedelta(0):
            self._kept[url] = _Kept(client, now + keep_for)
        return client

    async def _fetch(self, url: str) -> tuple[bytes, timedelta]:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port or 443
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        try:
            with anyio.fail_after(self._timeout):
                address = await self._address(host, port)
                stream = await anyio.connect_tcp(
                    address, port, tls=True, ssl_context=self._ssl, tls_hostname=host
                )
                try:
                    return await self._exchange(stream, parts.netloc, target)
                finally:
                    # No TLS close handshake: a refusal mid-body leaves the peer sending.
                    await anyio.aclose_forcefully(stream)
        except TimeoutError:
            raise DocumentRefused("timeout", f"no answer within {self._timeout:g} s") from None
        except (OSError, ssl.SSLError, anyio.BrokenResourceError, h11.ProtocolError) as error:
            raise DocumentRefused("fetch", f"the fetch failed ({type(error).__name__})") from None

    async def _address(self, host: str, port: int) -> str:
        try:
            addresses = list(await self._resolve(host, port))
        except OSError:
            raise DocumentRefused("fetch", "the host name does not resolve") from None
        if not addresses:
            raise DocumentRefused("fetch", "the host name does not resolve")
        if not self._allow_private and not all(is_public_address(address) for address in addresses):
            raise DocumentRefused(
                "address", "the host resolves to a private, loopback or link-local address"
            )
        return addresses[0]

    async def _exchange(
        self, stream: anyio.abc.ByteStream, netloc: str, target: str
    ) -> tuple[bytes, timedelta]:
        connection = h11.Connection(our_role=h11.CLIENT, max_incomplete_event_size=_MAX_HEAD)
        request = h11.Request(
            method="GET",
            target=target,
            headers=[
                ("Host", netloc),
                ("Accept", "application/json"),
                ("User-Agent", "ordergate"),
                ("Connection", "close"),
            ],
        )
        await stream.send(connection.send(request) + (connection.send(h11.EndOfMessage()) or b""))
        response: h11.Response | None = None
        body = bytearray()
        while True:
            event = connection.next_event()
            if event is h11.NEED_DATA:
                try:
                    connection.receive_data(await stream.receive(65536))
                except anyio.EndOfStream:
                    connection.receive_data(b"")
                continue
            if isinstance(event, h11.Response):
                response = event
                if 300 <= event.status_code < 400:
                    raise DocumentRefused("redirect", "the document's URL redirects")
                if event.status_code != 200:
                    raise DocumentRefused(
                        "status", f"the document's URL answered {event.status_code}"
                    )
                if _content_length(event) > self._max_bytes:
                    raise DocumentRefused(
                        "too_big", f"the document is over {self._max_bytes} bytes"
                    )
            elif isinstance(event, h11.Data):
                body += event.data
                if len(body) > self._max_bytes:
                    raise DocumentRefused(
                        "too_big", f"the document is over {self._max_bytes} bytes"
                    )
            elif isinstance(event, h11.EndOfMessage | h11.ConnectionClosed):
                break
        if response is None:
            raise DocumentRefused("fetch", "the connection closed before an answer")
        return bytes(body), _keep_for(response)


def _header(response: h11.Response, name: bytes) -> str:
    return ", ".join(
        value.decode("latin-1") for key, value in response.headers if key.lower() == name
    )


def _content_length(response: h11.Response) -> int:
    text = _header(response, b"content-length")
    return int(text) if text.isdigit() else 0


def _keep_for(response: h11.Response) -> timedelta:
    """How long the answer may be kept (RFC 9111 ``max-age``, capped; ``no-store`` and
    ``no-cache``: not at all; no ``max-age``: ``DEFAULT_CACHE``)."""
    directives = [d.strip().lower() for d in _header(response, b"cache-control").split(",")]
    if "no-store" in directives or "no-cache" in directives:
        return timedelta(0)
    for directive in directives:
        name, _, value = directive.partition("=")
        if name == "max-age" and value.strip('"').isdigit():
            return min(timedelta(seconds=int(value.strip('"'))), MAX_CACHE)
    return DEFAULT_CACHE


class WithClientDocuments:
    """``store`` (an ``AuthorizationStore``) with the clients ``documents`` name: a client id
    that is an https URL is its metadata document's client (``None`` when the document is
    refused, the reason logged by its code), any other id the store's own."""

    def __init__(self, store: AuthorizationStore, documents: ClientDocuments) -> None:
        self._store = store
        self._documents = documents

    async def client(self, client_id: str) -> Client | None:
        if not is_metadata_url(client_id):
            return await self._store.client(client_id)
        try:
            return await self._documents.client(client_id)
        except DocumentRefused as refused:
            logger.info("a client id metadata document was refused: %s", refused.code)
            return None

    async def open_consent(self, authorization: Authorization) -> ConsentTicket:
        return await self._store.open_consent(authorization)

    async def take_consent(self, pending_id: str, nonce: str) -> Authorization | None:
        return await self._store.take_consent(pending_id, nonce)

    async def issue_code(self, authorization: Authorization) -> str:
        return await self._store.issue_code(authorization)

    async def exchange_code(self, exchange: CodeExchange) -> IssuedTokens | Refusal:
        return await self._store.exchange_code(exchange)

    async def rotate_refresh_token(
        self, refresh_token: str, *, client_id: str
    ) -> IssuedTokens | Refusal:
        return await self._store.rotate_refresh_token(refresh_token, client_id=client_id)
