"""The stateless era's pieces (``mcpserve._stateless``) on their own: which requests speak it,
how results are shaped for it, what a peer declares."""

from __future__ import annotations

import pytest

from ordergate.mcpserve import EncodedResult, Peer, is_stateless, shaped

META = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}


@pytest.mark.req("mcp.stateless.envelope")
def test_the_era_is_chosen_by_header_envelope_or_discover_and_never_where_unspoken() -> None:
    speaks = ("2026-07-28",)
    listing = {"method": "tools/list", "params": {}}
    assert is_stateless(b"2026-07-28", listing, speaks=speaks)
    assert is_stateless(None, {"method": "tools/list", "params": META}, speaks=speaks)
    assert is_stateless(None, {"method": "server/discover"}, speaks=speaks)
    assert not is_stateless(b"2025-11-25", listing, speaks=speaks)
    assert not is_stateless(b"2099-01-01", listing, speaks=speaks)  # the handshake era's 400
    assert not is_stateless(None, {"method": "tools/list", "params": [1]}, speaks=speaks)
    assert not is_stateless(b"2026-07-28", listing, speaks=())


@pytest.mark.req("mcp.stateless.envelope")
def test_results_get_result_type_once_and_listings_their_cache_hints() -> None:
    assert shaped("ping", {}, ttl_ms=5) == {"resultType": "complete"}
    held = {"resultType": "input_required", "requestState": "s"}
    assert shaped("tools/call", held, ttl_ms=5) == held
    empty = shaped("tools/call", EncodedResult(b"{}"), ttl_ms=5)
    assert isinstance(empty, EncodedResult) and empty.decoded() == {"resultType": "complete"}
    typed = EncodedResult(b'{"resultType":"input_required"}')
    assert shaped("tools/call", typed, ttl_ms=5) is typed
    call = shaped("tools/call", EncodedResult(b'{"isError":false}'), ttl_ms=5)
    assert isinstance(call, EncodedResult)
    assert call.decoded() == {"resultType": "complete", "isError": False}
    listed = shaped("tools/list", EncodedResult(b'{"tools":[]}'), ttl_ms=5)
    assert listed == {"resultType": "complete", "tools": [], "ttlMs": 5, "cacheScope": "private"}


def test_a_peer_declares_a_capability_and_a_mode_of_it() -> None:
    peer = Peer("2026-07-28", stateless=True, capabilities={"elicitation": {"url": {}}, "x": 1})
    assert peer.declares("elicitation") and peer.declares("elicitation", "url")
    assert not peer.declares("elicitation", "form")
    assert not peer.declares("x") and not peer.declares("sampling")


def test_a_name_header_in_non_canonical_base64_matches_nothing() -> None:
    from ordergate.mcpserve import HEADER_MISMATCH, RpcError, envelope

    message = {
        "method": "tools/call",
        "params": {
            "name": "a",
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    }
    routing = [(b"mcp-protocol-version", b"2026-07-28"), (b"mcp-method", b"tools/call")]
    assert envelope(
        message,
        [*routing, (b"mcp-name", b"=?base64?YQ==?=")],
        speaks=("2026-07-28",),
        every_version=("2026-07-28",),
    ).stateless
    with pytest.raises(RpcError) as refused:
        envelope(  # "YR==" decodes to "a" too, but is not how "a" is written
            message,
            [*routing, (b"mcp-name", b"=?base64?YR==?=")],
            speaks=("2026-07-28",),
            every_version=("2026-07-28",),
        )
    assert refused.value.code == HEADER_MISMATCH
