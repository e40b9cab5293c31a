"""The lean keep-alive pool the per-call POSTs take (``ordergate.client._wire``), against
scripted HTTP/1.1 servers on real loopback sockets."""

from __future__ import annotations

import asyncio
import gzip
import ipaddress
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import anyio
import httpx2
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from ordergate.client import (
    JsonRpcCaller,
    LoginRequired,
    ResponseParseError,
    TokenSet,
    TransportError,
    Wire,
)
from ordergate.client._auth import TokenAuth
from ordergate.core import Secret, SteppedClock


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@dataclass
class Seen:
    """What the scripted server received: each request's head and body, per connection."""

    requests: list[tuple[int, bytes, bytes]] = field(default_factory=list)
    connections: int = 0


Script = Callable[[int, bytes, bytes, asyncio.StreamWriter], Awaitable[bool]]


async def until(condition: Callable[[], bool]) -> None:
    """Yield to the loop until ``condition`` holds (bounded: a loopback event is due)."""
    with anyio.fail_after(5):
        while not condition():
            await asyncio.sleep(0)


def answer(status: int, body: bytes, *headers: str) -> bytes:
    lines = [f"HTTP/1.1 {status} X", *headers, f"content-length: {len(body)}", "", ""]
    return "\r\n".join(lines).encode() + body


async def replies(n: int, head: bytes, body: bytes, writer: asyncio.StreamWriter) -> bool:
    writer.write(answer(200, b'{"n":%d}' % n, "content-type: application/json"))
    return True


@asynccontextmanager
async def server(script: Script) -> AsyncIterator[tuple[str, Seen]]:
    """A server that reads each request (head and ``content-length`` body) and lets
    ``script(n, head, body, writer)`` answer it; ``False`` from the script closes."""
    seen = Seen()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.connections += 1
        connection = seen.connections
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except asyncio.IncompleteReadError:
                    return
                length = 0
                for line in head.split(b"\r\n"):
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                body = await reader.readexactly(length)
                seen.requests.append((connection, head, body))
                if not await script(len(seen.requests), head, body, writer):
                    return
                await writer.drain()
        finally:
            writer.close()

    listening = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = listening.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/mcp?x=1", seen
    finally:
        listening.close()


@pytest.mark.anyio
async def test_posts_share_one_keep_alive_connection_and_carry_their_headers() -> None:
    async with server(replies) as (url, seen):
        wire = Wire(url, timeout_s=5.0, headers=[(b"user-agent", b"ua/1")])
        first = await wire.post([(b"accept", b"application/json")], b'{"a":1}')
        second = await wire.post([], b"{}")
        await wire.aclose()
    assert (first.status_code, first.content, second.content) == (200, b'{"n":1}', b'{"n":2}')
    assert first.header(b"content-type") == "application/json"
    assert seen.connections == 1
    _, head, body = seen.requests[0]
    assert head.startswith(b"POST /mcp?x=1 HTTP/1.1\r\nHost: 127.0.0.1:")
    assert b"user-agent: ua/1\r\n" in head and b"accept: application/json\r\n" in head
    assert b"Content-Length: 7\r\n" in head and body == b'{"a":1}'


@pytest.mark.anyio
async def test_a_chunked_event_stream_and_a_gzip_answer_arrive_whole() -> None:
    events = b"event: message\r\ndata: {}\r\n\r\n"

    async def script(n: int, head: bytes, body: bytes, writer: asyncio.StreamWriter) -> bool:
        if n == 1:
            chunks = b"%x\r\n%s\r\n0\r\n\r\n" % (len(events), events)
            writer.write(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                b"transfer-encoding: chunked\r\n\r\n" + chunks
            )
        else:
            writer.write(answer(200, gzip.compress(b"zipped"), "content-encoding: gzip"))
        return True

    async with server(script) as (url, seen):
        wire = Wire(url, timeout_s=5.0)
        streamed = await wire.post([], b"{}")
        zipped = await wire.post([], b"{}")
        await wire.aclose()
    assert streamed.content == events and zipped.content == b"zipped"
    assert seen.connections == 1


@pytest.mark.anyio
async def test_an_answer_in_an_unknown_coding_fails_closed() -> None:
    async def script(n: int, head: bytes, body: bytes, writer: asyncio.StreamWriter) -> bool:
        writer.write(answer(200, b"??", "content-encoding: br"))
        return True

    async with server(script) as (url, _):
        wire = Wire(url, timeout_s=5.0)
        with pytest.raises(httpx2.DecodingError, match="unknown content coding"):
            await wire.post([], b"{}")
        await wire.aclose()


@pytest.mark.anyio
async def test_an_answer_over_the_size_bound_fails_closed_and_its_connection_goes() -> None:
    async def script(n: int, head: bytes, body: bytes, writer: asyncio.StreamWriter) -> bool:
        writer.write(answer(200, b"x" * 5000) if n == 1 else answer(200, b"small"))
        return True

    async with server(script) as (url, seen):
        wire = Wire(url, timeout_s=5.0, max_answer_bytes=4096)
        with pytest.raises(httpx2.RemoteProtocolError, match=r"over 4096 bytes .*127\.0\.0\.1"):
            await wire.post([], b"{}")
        assert (await wire.post([], b"{}")).content == b"small"  # on a new connection
        await wire.aclose()
    assert seen.connections == 2


@pytest.mark.anyio
async def test_a_small_answer_that_inflates_past_the_bound_fails_closed() -> None:
    bomb = gzip.compress(b"\0" * 1_000_000)  # ~1 KB on the wire, a megabyte decoded

    async def script(n: int, head: bytes, body: bytes, writer: asyncio.StreamWriter) -> bool:
        writer.write(answer(200, bomb, "content-encoding: gzip"))
        return True

    async with server(script) as (url, _):
        wire = Wire(url, timeout_s=5.0, max_answer_bytes=65536)
        assert len(bomb) < 65536
        with pytest.raises(httpx2.DecodingError, match="over 65536 bytes once decoded"):
            await wire.post([], b"{}")
        await wire.aclose()


@pytest.mark.anyio
async def test_an_answer_without_a_length_runs_to_the_close_and_the_connection_is_not_kept() -> (
    None
):
    async def script(n: int, head: bytes, body: bytes, writer: asyncio.StreamWriter) -> bool:
        writer.write(b"HTTP/1.1 200 OK\r\nconnection: close\r\n\r\nuntil the end")
        return False

    async with server(script) as (url, seen):
        wire = Wire(url, timeout_s=5.0)
        assert (await wire.post([], b"{}")).content == b"until the end"
        assert (await wire.post([], b"{}")).content == b"until the end"
        await wire.aclose()
    assert seen.connections == 2


@pytest.mark.anyio
async def test_a_connection_closed_after_the_request_fails_it_and_it_is_not_sent_again() -> None:
    async def hang_up(n: int, head: bytes, body: bytes, writer: asyncio.StreamWriter) -> bool:
        return False

    async with server(hang_up) as (url, seen):
        wire = Wire(url, timeout_s=5.0)
        with pytest.raises(httpx2.RemoteProtocolError) as raised:
            await wire.post([], b'{"method":"place"}')
        await wire.aclose()
    assert len(seen.requests) == 1
    assert str(raised.value) == f"the server closed the connection ({url.split('?')[0]})"


@pytest.mark.anyio
async def test_no_answer_in_time_is_a_read_timeout_and_that_connection_is_closed() -> None:
    async def silent_once(n: int, head: bytes, body: bytes, writer: asyncio.StreamWriter) -> bool:
        if n > 1:
            return await replies(n, head, body, writer)
        return True  # the first request is never answered

    async with server(silent_once) as (url, seen):
        wire = Wire(url, timeout_s=0.2)
        with pytest.raises(httpx2.ReadTimeout, match="no answer in time"):
            await wire.post([], b"{}")
        assert (await wire.post([], b"{}")).content == b'{"n":2}'
        await wire.aclose()
    assert seen.connections == 2


@pytest.mark.anyio
async def test_nobody_listening_is_a_connect_error_naming_the_url_without_its_query() -> None:
    async with server(replies) as (url, _):
        pass  # closed: nothing listens on its port any more
    wire = Wire(url, timeout_s=5.0)
    with pytest.raises(httpx2.ConnectError) as raised:
        await wire.post([], b"{}")
    assert url.split("?")[0] in str(raised.value) and "x=1" not in str(raised.value)


@pytest.mark.anyio
async def test_the_pool_is_bounded_and_callers_wait_for_a_free_connection() -> None:
    release = asyncio.Event()

    async def slow(n: int, head: bytes, body: bytes, writer: asyncio.StreamWriter) -> bool:
        if n == 1:
            await release.wait()
        return await replies(n, head, body, writer)

    async with server(slow) as (url, seen):
        wire = Wire(url, timeout_s=5.0, max_connections=1)
        first = asyncio.ensure_future(wire.post([], b"{}"))
        second = asyncio.ensure_future(wire.post([], b"{}"))
        await until(lambda: bool(seen.requests))
        assert not second.done() and len(seen.requests) == 1
        release.set()
        got = [(await first).content, (await second).content]
        await wire.aclose()
    assert got == [b'{"n":1}', b'{"n":2}'] and seen.connections == 1


@pytest.mark.anyio
async def test_a_full_pool_past_the_deadline_is_a_pool_timeout() -> None:
    async def never(n: int, head: bytes, body: bytes, writer: asyncio.StreamWriter) -> bool:
        return True

    async with server(never) as (url, seen):
        wire = Wire(url, timeout_s=0.2, max_connections=1)
        with pytest.raises(httpx2.ReadTimeout):
            await wire.post([], b"{}")  # an answer that never comes: the deadline ends it
        assert len(seen.requests) == 1
        # The pool full for longer than a request's deadline. (Held here: a request holding
        # the one connection would time out as the waiting one does, and free it first.)
        await wire._slots.acquire()
        with pytest.raises(httpx2.PoolTimeout):
            await wire.post([], b"{}")
        wire._slots.release()
        assert len(seen.requests) == 1  # the request that found no connection was never sent
        await wire.aclose()


@pytest.mark.anyio
async def test_an_idle_connection_past_its_expiry_or_closed_by_the_server_is_not_reused() -> None:
    now = [0.0]

    async def close_second(n: int, head: bytes, body: bytes, writer: asyncio.StreamWriter) -> bool:
        await replies(n, head, body, writer)
        return n != 2  # the server drops the connection once it answered the second

    async with server(close_second) as (url, seen):
        wire = Wire(url, timeout_s=5.0, keepalive_expiry_s=4.0, clock=lambda: now[0])
        await wire.post([], b"{}")
        now[0] = 4.0  # idle as long as the expiry: a new connection
        await wire.post([], b"{}")
        await until(lambda: bool(wire._idle) and wire._idle[-1].closed)  # the server's close
        assert (await wire.post([], b"{}")).content == b'{"n":3}'
        await wire.aclose()
    assert [connection for connection, _, _ in seen.requests] == [1, 2, 3]


@pytest.mark.anyio
async def test_a_cancelled_caller_leaves_no_connection_to_reuse() -> None:
    async def silent_once(n: int, head: bytes, body: bytes, writer: asyncio.StreamWriter) -> bool:
        return True if n == 1 else await replies(n, head, body, writer)

    async with server(silent_once) as (url, seen):
        wire = Wire(url, timeout_s=5.0)
        call = asyncio.ensure_future(wire.post([], b"{}"))
        await until(lambda: bool(seen.requests))
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        assert (await wire.post([], b"{}")).content == b'{"n":2}'
        await wire.aclose()
    assert seen.connections == 2


def test_a_header_with_a_line_break_and_a_url_that_is_not_http_are_refused() -> None:
    with pytest.raises(ValueError, match="line break"):
        Wire("http://127.0.0.1:1/mcp", timeout_s=1.0, headers=[(b"x", b"a\r\nb: c")])
    with pytest.raises(ValueError, match="not an http"):
        Wire("ftp://127.0.0.1/mcp", timeout_s=1.0)


# -- a JsonRpcCaller on a wire -------------------------------------------------------------

START = datetime(2026, 12, 1, 15, tzinfo=UTC)


def _tokens(url: str, access: str) -> TokenSet:
    return TokenSet(
        access_token=Secret(access),
        refresh_token=Secret("refresh"),
        expires_at=None,
        token_endpoint=url + "/token",
        client_id="c",
        resource=url,
        scope="internal",
        server=url,
    )


RESULT = b'{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"data":{"ok":true}}}}'


@pytest.mark.anyio
async def test_a_caller_on_a_wire_signs_refreshes_once_after_a_401_and_keeps_cookies() -> None:
    async def script(n: int, head: bytes, body: bytes, writer: asyncio.StreamWriter) -> bool:
        if b"Bearer old" in head:
            writer.write(answer(401, b"", "set-cookie: lb=one; Path=/"))
        else:
            writer.write(answer(200, RESULT, "content-type: application/json"))
        return True

    async with server(script) as (url, seen):
        url = url.split("?")[0]
        refreshed: list[str] = []

        async def refresh(stale: TokenSet) -> TokenSet:
            refreshed.append(stale.access_token.reveal())
            return _tokens(url, "new")

        auth = TokenAuth(_tokens(url, "old"), refresh=refresh, clock=SteppedClock(start=START))
        async with httpx2.AsyncClient() as http:
            wire = Wire(url, timeout_s=5.0)
            caller = JsonRpcCaller(http, url, session_id="s-1", wire=wire, auth=auth)
            assert await caller.call("get_x", {}) == {"ok": True}
            assert await caller.call("get_x", {}) == {"ok": True}
            await wire.aclose()
    assert refreshed == ["old"]
    heads = [head for _, head, _ in seen.requests]
    assert b"authorization: Bearer old" in heads[0] and b"mcp-session-id: s-1" in heads[0]
    # The retry is the same request, as httpx2 resends it; the next call carries the cookie.
    assert b"authorization: Bearer new" in heads[1] and b"cookie" not in heads[1]
    assert b"authorization: Bearer new" in heads[2] and b"cookie: lb=one" in heads[2]


@pytest.mark.anyio
async def test_a_caller_on_a_wire_fails_closed_when_the_refreshed_token_is_refused_too() -> None:
    async def refuse(n: int, head: bytes, body: bytes, writer: asyncio.StreamWriter) -> bool:
        writer.write(answer(401, b""))
        return True

    async with server(refuse) as (url, seen):
        url = url.split("?")[0]

        async def refresh(stale: TokenSet) -> TokenSet:
            return _tokens(url, "new")

        auth = TokenAuth(_tokens(url, "old"), refresh=refresh, clock=SteppedClock(start=START))
        async with httpx2.AsyncClient() as http:
            wire = Wire(url, timeout_s=5.0)
            caller = JsonRpcCaller(http, url, wire=wire, auth=auth)
            with pytest.raises(LoginRequired, match="refused the refreshed"):
                await caller.call("get_x", {})
            await wire.aclose()
    assert len(seen.requests) == 2


@pytest.mark.anyio
async def test_a_caller_on_a_wire_maps_no_answer_to_a_transport_error_naming_the_venue() -> None:
    async def hang_up(n: int, head: bytes, body: bytes, writer: asyncio.StreamWriter) -> bool:
        return False

    async with server(hang_up) as (url, _):
        url = url.split("?")[0]
        async with httpx2.AsyncClient() as http:
            wire = Wire(url, timeout_s=5.0)
            caller = JsonRpcCaller(http, url, wire=wire)
            with pytest.raises(TransportError) as raised:
                await caller.call("get_x", {})
            await wire.aclose()
    assert str(raised.value).startswith(f"no answer from the venue at {url} (RemoteProtocolError)")


@pytest.mark.anyio
async def test_a_caller_on_a_wire_reads_a_body_that_does_not_decode_as_unparseable() -> None:
    async def corrupt(n: int, head: bytes, body: bytes, writer: asyncio.StreamWriter) -> bool:
        writer.write(answer(200, b"not gzip", "content-encoding: gzip"))
        return True

    async with server(corrupt) as (url, _):
        url = url.split("?")[0]
        async with httpx2.AsyncClient() as http:
            wire = Wire(url, timeout_s=5.0)
            caller = JsonRpcCaller(http, url, wire=wire)
            with pytest.raises(ResponseParseError, match="does not decode"):
                await caller.call("get_x", {})
            await wire.aclose()


@pytest.mark.anyio
@pytest.mark.parametrize("word", ["NaN", "Infinity", "-Infinity"])
@pytest.mark.parametrize("where", ["structured", "text"])
async def test_a_venue_answer_with_a_number_json_does_not_have_is_unreadable(
    word: str, where: str
) -> None:
    """``NaN`` and the infinities are Python's extension of JSON, not JSON: an answer that
    carries one fails closed, never reaching a caller (or a forwarded read) as a float."""
    payload = '{"data":{"results":[{"quote":{"bid_price":' + word + "}}]}}"
    if where == "structured":
        result = '{"structuredContent":' + payload + ',"isError":false}'
    else:  # the text copy only, as some answers carry
        text = payload.replace('"', '\\"')
        result = '{"content":[{"type":"text","text":"' + text + '"}],"isError":false}'
    body = ('{"jsonrpc":"2.0","id":1,"result":' + result + "}").encode()

    async def nan(n: int, head: bytes, request: bytes, writer: asyncio.StreamWriter) -> bool:
        writer.write(answer(200, body, "content-type: application/json"))
        return True

    async with server(nan) as (url, _):
        url = url.split("?")[0]
        async with httpx2.AsyncClient() as http:
            wire = Wire(url, timeout_s=5.0)
            caller = JsonRpcCaller(http, url, wire=wire)
            with pytest.raises(ResponseParseError):
                await caller.call("get_equity_quotes", {"symbols": ["AAPL"]})
            await wire.aclose()


def _self_signed(tmp_path: Path) -> tuple[Path, Path]:
    """A certificate for ``localhost`` (and 127.0.0.1) signed by its own key."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.now(UTC)
    alt = x509.SubjectAlternativeName(
        [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    )
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(hours=1))
        .add_extension(alt, critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_file, key_file


@pytest.mark.anyio
async def test_an_https_url_is_reached_over_tls_and_an_untrusted_certificate_fails_closed(
    tmp_path: Path,
) -> None:
    cert_file, key_file = _self_signed(tmp_path)
    served = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    served.load_cert_chain(cert_file, key_file)

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
            await reader.readexactly(length)
            writer.write(answer(200, b"over tls"))
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
            pass  # the untrusting client hung up during the handshake
        finally:
            writer.close()

    listening = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=served)
    port = listening.sockets[0].getsockname()[1]
    try:
        trusting = ssl.create_default_context(cafile=str(cert_file))
        wire = Wire(f"https://localhost:{port}/mcp", timeout_s=5.0, ssl_context=trusting)
        assert (await wire.post([], b"{}")).content == b"over tls"
        await wire.aclose()
        untrusting = Wire(f"https://localhost:{port}/mcp", timeout_s=5.0)  # httpx2's defaults
        with pytest.raises(httpx2.ConnectError, match=f"https://localhost:{port}/mcp"):
            await untrusting.post([], b"{}")
        await untrusting.aclose()
    finally:
        listening.close()
