"""``ordergate bench gateway``: a tiny run against real processes checked for shape, and the
raw load generator's reading of answers. No timing is asserted."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx2
import pytest
from typer.testing import CliRunner

from ordergate._serving import BackgroundServer, bind_socket
from ordergate.bench import BENCHES, _gateway, _hop
from ordergate.bench._process import VENUE_START
from ordergate.cli import app
from ordergate.client import Wire
from ordergate.core import SteppedClock
from ordergate.gateway._minting import mint_owner_tokens
from ordergate.gateway.oauth import GatewayAuth
from ordergate.gateway.oauth._records import ConnectionKind, ConnectionState
from ordergate.ledger import open_ledger

TINY = _gateway.Sizes(rounds=1, per_round=4, warmup=2, orders=2, per_client=2)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_gateway_is_a_registered_bench() -> None:
    assert BENCHES["gateway"] is _gateway.run_gateway_bench


@pytest.mark.req("bench.gateway.bare-hop")
@pytest.mark.req("bench.gateway.stateless")
def test_a_quick_run_prints_every_case_with_its_baseline_and_ratio(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(_gateway.SIZES, "quick", TINY)
    result = CliRunner().invoke(app, ["bench", "gateway", "--quick"])
    assert result.exit_code == 0, result.output
    # Every number as a Decimal: a p50 that is a whole number of µs is written as an integer.
    lines = [
        json.loads(line, parse_float=Decimal, parse_int=Decimal)
        for line in result.stdout.splitlines()
    ]
    cases = {line["case"]: line for line in lines}
    expected = [
        "direct_read",
        "gateway_read",
        "gateway_read_2026",
        "bare_hop_read",
        "gateway_order",
        "gateway_cancel",
        "gateway_option_order",
        "gateway_option_cancel",
        "gateway_condor_order",
        "gateway_condor_cancel",
        "mcp_proxy_read",
        "direct_read_32c",
        "gateway_read_32c",
    ]
    # The peer runs in an environment uv fetches from the package registry; where it cannot
    # start, the bench says so on stderr and measures everything else.
    peer_missing = "mcp_proxy_read skipped" in result.stderr
    if peer_missing:
        expected.remove("mcp_proxy_read")
    assert [line["case"] for line in lines] == expected
    assert all(line["bench"] == "gateway" for line in lines)
    for baseline in ("direct_read", "direct_read_32c"):
        assert "baseline" not in cases[baseline] and "ratio" not in cases[baseline]
    for case in (
        "gateway_read",
        "gateway_read_2026",
        "bare_hop_read",
        "gateway_order",
        "gateway_cancel",
        "mcp_proxy_read",
    ):
        if case in cases:
            assert cases[case]["baseline"] == "direct_read" and cases[case]["ratio"] > 0
    assert cases["gateway_read_32c"]["baseline"] == "direct_read_32c"
    assert cases["gateway_read_32c"]["ratio"] > 0
    # Each option order against the equity order, each option cancel against its cancel.
    for option, equity in (
        ("gateway_option_order", "gateway_order"),
        ("gateway_option_cancel", "gateway_cancel"),
        ("gateway_condor_order", "gateway_order"),
        ("gateway_condor_cancel", "gateway_cancel"),
    ):
        ratio = cases[option]["p50_us"] / cases[equity]["p50_us"]
        assert cases[option]["baseline"] == equity
        assert cases[option]["ratio"] == ratio.quantize(Decimal("0.01"))
    orders = [case for case in expected if "_order" in case or "_cancel" in case]
    sizes = dict.fromkeys(orders, 2) | {"direct_read_32c": 64, "gateway_read_32c": 64}
    assert {case: line["n"] for case, line in cases.items()} == {
        case: sizes.get(case, 4) for case in expected
    }
    gateway = cases["gateway_read"]
    assert gateway["added_p50_us"] == gateway["p50_us"] - cases["direct_read"]["p50_us"]
    hop_ratio = gateway["p50_us"] / cases["bare_hop_read"]["p50_us"]
    assert gateway["bare_hop_ratio"] == hop_ratio.quantize(Decimal("0.01"))
    assert peer_missing or gateway["mcp_proxy_ratio"] > 0
    stateless = cases["gateway_read_2026"]
    era_ratio = stateless["p50_us"] / gateway["p50_us"]
    assert stateless["era_ratio"] == era_ratio.quantize(Decimal("0.01"))
    # Every concurrent call completed: none failed, none was left unmade.
    assert cases["direct_read_32c"]["errors"] == cases["gateway_read_32c"]["errors"] == 0
    assert cases["gateway_read_32c"]["throughput_ratio"] > 0


def test_without_uv_the_peer_is_skipped_on_stderr_and_the_other_cases_still_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(_gateway.SIZES, "quick", TINY)
    monkeypatch.delenv("UV", raising=False)
    monkeypatch.setattr(shutil, "which", lambda name: None)  # as _gateway sees it
    result = CliRunner().invoke(app, ["bench", "gateway", "--quick"])
    assert result.exit_code == 0, result.output
    # Every number as a Decimal: a p50 that is a whole number of µs is written as an integer.
    lines = [
        json.loads(line, parse_float=Decimal, parse_int=Decimal)
        for line in result.stdout.splitlines()
    ]
    assert [line["case"] for line in lines] == [
        "direct_read",
        "gateway_read",
        "gateway_read_2026",
        "bare_hop_read",
        "gateway_order",
        "gateway_cancel",
        "gateway_option_order",
        "gateway_option_cancel",
        "gateway_condor_order",
        "gateway_condor_cancel",
        "direct_read_32c",
        "gateway_read_32c",
    ]
    assert "mcp_proxy_ratio" not in lines[1]
    assert result.stderr.strip() == (
        "bench gateway: mcp_proxy_read skipped: "
        "uv is not installed (it runs mcp-proxy in an environment of its own)"
    )


def test_a_bench_token_is_a_gateway_access_token_on_a_fresh_owner_connection(
    tmp_path: Path,
) -> None:
    clock = SteppedClock(start=_gateway_start())
    with open_ledger(f"sqlite:///{tmp_path / 'ledger.db'}", clock=clock) as ledger:
        auth = GatewayAuth(ledger.engine, public_url="http://127.0.0.1:8787", clock=clock)
        first = mint_owner_tokens(auth.store, client_name="bench", resource=auth.resource)
        second = mint_owner_tokens(auth.store, client_name="bench", resource=auth.resource)
        grants = [auth.verifier.verify(pair.access_token) for pair in (first, second)]
        assert grants[0] is not None and grants[1] is not None
        connection = auth.store.connection(grants[0].connection_id)
        client = auth.store.client(grants[0].client_id)
    assert grants[0].connection_id != grants[1].connection_id
    assert connection is not None and connection.kind is ConnectionKind.OWNER
    assert connection.state is ConnectionState.LIVE
    assert client is not None and client.client_name == "bench"
    assert first.expires_in == 3600
    assert first.access_token not in repr(first) and first.refresh_token not in repr(first)


def _gateway_start() -> datetime:
    return datetime.fromisoformat(VENUE_START)


_RESULT = b'{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":false}}'


def _chunked(body: bytes) -> bytes:
    half = len(body) // 2
    parts = [body[:half], body[half:]]
    return b"".join(b"%x;ext=1\r\n%s\r\n" % (len(part), part) for part in parts) + b"0\r\n\r\n"


@asynccontextmanager
async def _canned(*answers: bytes) -> AsyncIterator[int]:
    """A loopback server that answers the requests on each keep-alive connection (each read
    up to its body) with ``answers`` in turn, then hangs up."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for answer in answers:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError:  # the client hung up first
                break
            length = next(
                int(line.split(b":")[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            )
            await reader.readexactly(length)
            writer.write(answer)
            await writer.drain()
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    async with server:
        yield server.sockets[0].getsockname()[1]


def _response(status: str, content_type: str, body: bytes, *, chunked: bool = False) -> bytes:
    if chunked:
        framing, payload = b"transfer-encoding: chunked", _chunked(body)
    else:
        framing, payload = b"content-length: %d" % len(body), body
    return b"HTTP/1.1 %s\r\ncontent-type: %s\r\n%s\r\n\r\n%s" % (
        status.encode(),
        content_type.encode(),
        framing,
        payload,
    )


@pytest.mark.anyio
async def test_the_load_generator_reads_json_and_chunked_event_stream_answers() -> None:
    sse = b"event: message\r\ndata: " + _RESULT + b"\r\n\r\n"
    answers = (
        _response("200 OK", "application/json", _RESULT),
        _response("200 OK", "text/event-stream", sse, chunked=True),
    )
    async with _canned(*answers) as port:
        connection = await _gateway.Connection.open(port)
        request = _gateway.http_post(port, "/mcp", b"{}", {"accept": "application/json"})
        first = await connection.send(request)
        second = await connection.send(request)
        await connection.close()
    for answer in (first, second):
        assert _gateway.problem(answer) is None
        assert _gateway.checked("case", answer) == {"content": [], "isError": False}


@pytest.mark.anyio
async def test_answers_that_are_not_results_are_named_as_problems() -> None:
    failed = b'{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}'
    refused = b'{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad"}}'
    answers = (
        _response("500 Internal Server Error", "text/plain", b"boom"),
        _response("200 OK", "application/json", failed),
        _response("200 OK", "application/json", refused),
        _response("200 OK", "application/json", b"not json"),
        _response("200 OK", "text/event-stream", b": no data\r\n\r\n"),
    )
    async with _canned(*answers) as port:
        connection = await _gateway.Connection.open(port)
        request = _gateway.http_post(port, "/mcp", b"{}", {})
        got = [await connection.send(request) for _ in answers]
        await connection.close()
    problems = [_gateway.problem(answer) for answer in got]
    assert problems[0] == "HTTP 500: b'boom'"
    assert problems[1] is not None and problems[1].startswith("the call failed")
    assert problems[2] is not None and problems[2].startswith("no result")
    assert problems[3] is not None and problems[3].startswith("an unreadable answer")
    assert problems[4] == "an unreadable answer (an event stream without data)"
    with pytest.raises(RuntimeError, match=r"^case: HTTP 500"):
        _gateway.checked("case", got[0])


@pytest.mark.anyio
async def test_concurrent_load_counts_failed_calls_and_a_broken_connection_as_errors() -> None:
    ok = _response("200 OK", "application/json", _RESULT)
    bad = _response("503 Service Unavailable", "text/plain", b"busy")
    # One client: a success, a 503, then the server hangs up mid-run.
    async with _canned(ok, bad) as port:
        target = _gateway.Target("case", port, "/mcp", "t")
        session = _gateway.Session(target, await _gateway.Connection.open(port), "s1")
        load = _gateway.Load([])
        await _gateway.concurrent([session], b"{}", 5, load)
        await session.connection.close()
    assert len(load.samples) == 1
    assert load.errors == 2  # the 503, and the hang-up that ended the client
    assert load.wall_ns > 0


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (b"SSH-2.0-OpenSSH\r\n\r\n", "not an HTTP/1.1 status line"),
        (b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n{}", "without a length"),
    ],
)
async def test_an_answer_that_is_not_framed_http_is_refused(answer: bytes, reason: str) -> None:
    async with _canned(answer) as port:
        connection = await _gateway.Connection.open(port)
        with pytest.raises(_gateway.HttpError, match=reason):
            await connection.send(_gateway.http_post(port, "/mcp", b"{}", {}))
        await connection.close()


def test_a_peer_that_cannot_start_is_skipped_with_the_end_of_its_output(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake_uv = tmp_path / "uv"
    fake_uv.write_text("#!/bin/sh\necho 'error: cannot fetch mcp-proxy' >&2\nexit 3\n")
    fake_uv.chmod(0o755)
    monkeypatch.setenv("UV", str(fake_uv))
    with _gateway._mcp_proxy("http://127.0.0.1:9/mcp", "unused", tmp_path) as proxy:
        assert proxy == "mcp-proxy exited with 3: error: cannot fetch mcp-proxy"


@pytest.mark.anyio
async def test_a_timed_call_the_server_hangs_up_on_fails_the_run_naming_the_case() -> None:
    ok = _response("200 OK", "application/json", _RESULT)
    async with _canned(ok) as port:
        target = _gateway.Target("gateway_read", port, "/mcp", "t")
        session = _gateway.Session(target, await _gateway.Connection.open(port), "s1")
        with pytest.raises(RuntimeError) as raised:
            await _gateway.timed(session, b"{}", 3)
        await session.connection.close()
    assert str(raised.value) == "gateway_read: no answer on the connection (IncompleteReadError)"


@pytest.mark.anyio
@pytest.mark.req("bench.gateway.bare-hop")
async def test_the_bare_hop_passes_the_body_and_mcp_headers_through_and_checks_nothing() -> None:
    seen: list[tuple[bytes, dict[str, str]]] = []
    answer = b'{"jsonrpc":"2.0","id":1,"result":{}}'

    async def upstream(scope: Any, receive: Any, send: Any) -> None:
        body = (await receive())["body"]
        seen.append((body, {k.decode(): v.decode() for k, v in scope["headers"]}))
        headers = [(b"content-type", b"application/json"), (b"mcp-session-id", b"s-1")]
        await send({"type": "http.response.start", "status": 202, "headers": headers})
        await send({"type": "http.response.body", "body": answer})

    with BackgroundServer(upstream, bind_socket("127.0.0.1", 0)) as venue:
        pooled = Wire(f"http://127.0.0.1:{venue.port}/mcp/trading", timeout_s=10.0)
        try:
            hop = _hop.hop_app(f"http://127.0.0.1:{venue.port}/mcp/trading", pooled)
            transport = httpx2.ASGITransport(app=hop)
            async with httpx2.AsyncClient(transport=transport, base_url="http://hop") as client:
                headers = {
                    "authorization": "Bearer venue-token",
                    "mcp-session-id": "s-1",
                    "mcp-protocol-version": "2025-11-25",
                    "content-type": "application/json",
                    "accept": "application/json, text/event-stream",
                    "x-not-passed": "1",
                    "host": "evil.example",
                }
                got = await client.post("/mcp", content=b'{"id":1}', headers=headers)
        finally:
            await pooled.aclose()
    assert got.status_code == 202 and got.content == answer
    assert got.headers["mcp-session-id"] == "s-1"
    assert got.headers["content-type"] == "application/json"
    body, passed = seen[0]
    assert body == b'{"id":1}'
    assert passed["authorization"] == "Bearer venue-token"
    assert passed["mcp-session-id"] == "s-1" and passed["mcp-protocol-version"] == "2025-11-25"
    assert "x-not-passed" not in passed
