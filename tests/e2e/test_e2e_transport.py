"""Streamable HTTP as the live venue speaks it, over real loopback sockets."""

from __future__ import annotations

from collections.abc import Iterator

import httpx2
import pytest
from venue_testkit import ACCEPT_BOTH, VenueClient, decode, running_venue


@pytest.fixture(scope="module")
def venue() -> Iterator[VenueClient]:
    with running_venue() as client:
        client.initialize()
        yield client


@pytest.mark.req("mcp.http.post-only")
def test_get_on_the_endpoint_answers_405(venue: VenueClient) -> None:
    response = venue.http.get(venue.mcp_url, headers=venue.headers())
    assert response.status_code == 405


@pytest.mark.req("oauth.challenge.resource-metadata")
def test_unauthenticated_request_gets_401_with_resource_metadata_challenge(
    venue: VenueClient,
) -> None:
    response = venue.http.post(
        venue.mcp_url,
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"accept": ACCEPT_BOTH},
    )
    assert response.status_code == 401
    metadata = f"{venue.base_url}/.well-known/oauth-protected-resource/mcp/trading"
    assert response.headers["www-authenticate"] == f'Bearer resource_metadata="{metadata}"'


@pytest.mark.req("oauth.challenge.resource-metadata")
def test_unknown_bearer_token_gets_401_invalid_token(venue: VenueClient) -> None:
    response = venue.post(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, authorization="Bearer not-a-token"
    )
    assert response.status_code == 401
    assert 'error="invalid_token"' in response.headers["www-authenticate"]
    assert "not-a-token" not in response.text


@pytest.mark.req("mcp.http.framing")
def test_both_framings_are_choosable_per_request(venue: VenueClient) -> None:
    message = {"jsonrpc": "2.0", "id": 5, "method": "ping"}
    as_json = venue.post(message, accept="application/json")
    as_sse = venue.post(message, accept="text/event-stream")
    assert as_json.headers["content-type"].startswith("application/json")
    assert as_sse.headers["content-type"].startswith("text/event-stream")
    assert decode(as_json) == decode(as_sse) == {"jsonrpc": "2.0", "id": 5, "result": {}}
    assert venue.post(message, accept="text/html").status_code == 406


@pytest.mark.req("mcp.http.framing")
def test_server_default_framing_can_be_sse() -> None:
    with running_venue(framing="sse") as client:
        response = client.post({"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert response.headers["content-type"].startswith("text/event-stream")
        assert response.text.startswith("event: message\ndata: ")
        assert response.text.endswith("\n\n")


@pytest.mark.req("mcp.session.issued-and-honoured")
def test_session_id_is_issued_on_initialize_and_echoed_after(venue: VenueClient) -> None:
    assert venue.session_id
    response = venue.post({"jsonrpc": "2.0", "id": 2, "method": "ping"})
    assert response.headers["mcp-session-id"] == venue.session_id


@pytest.mark.req("mcp.session.issued-and-honoured")
def test_unknown_session_id_gets_404_so_the_client_starts_again(venue: VenueClient) -> None:
    response = venue.post(
        {"jsonrpc": "2.0", "id": 3, "method": "ping"}, **{"mcp-session-id": "f" * 32}
    )
    assert response.status_code == 404


@pytest.mark.req("mcp.session.issued-and-honoured")
def test_requests_without_a_session_are_served_statelessly() -> None:
    with running_venue() as client:
        assert client.session_id is None
        assert client.data("get_accounts")["accounts"]


@pytest.mark.req("mcp.session.issued-and-honoured")
def test_delete_ends_a_session() -> None:
    with running_venue() as client:
        client.initialize()
        assert client.http.delete(client.mcp_url, headers=client.headers()).status_code == 200
        response = client.post({"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert response.status_code == 404


@pytest.mark.req("mcp.version.negotiation")
@pytest.mark.parametrize(
    ("requested", "answered"),
    [("2025-06-18", "2025-06-18"), ("2025-11-25", "2025-11-25"), ("2024-11-05", "2025-11-25")],
)
def test_protocol_versions_2025_06_18_and_2025_11_25_are_negotiated(
    requested: str, answered: str
) -> None:
    with running_venue() as client:
        result = client.initialize(requested)
        assert result["protocolVersion"] == answered
        assert result["capabilities"]["tools"] == {"listChanged": False}


@pytest.mark.req("mcp.version.negotiation")
def test_unsupported_protocol_version_header_is_refused(venue: VenueClient) -> None:
    response = venue.post(
        {"jsonrpc": "2.0", "id": 9, "method": "ping"}, **{"mcp-protocol-version": "1999-01-01"}
    )
    assert response.status_code == 400


def test_notifications_are_accepted_without_a_body(venue: VenueClient) -> None:
    response = venue.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert response.status_code == 202
    assert response.content == b""


@pytest.mark.req("mcp.jsonrpc.protocol-errors")
def test_malformed_json_is_a_parse_error(venue: VenueClient) -> None:
    response = venue.http.post(venue.mcp_url, content=b"{not json", headers=venue.headers())
    assert response.status_code == 400
    assert decode(response)["error"]["code"] == -32700


@pytest.mark.req("mcp.jsonrpc.protocol-errors")
def test_batches_and_non_objects_are_invalid_requests(venue: VenueClient) -> None:
    response = venue.post([{"jsonrpc": "2.0", "id": 1, "method": "ping"}])
    assert response.status_code == 400
    assert decode(response)["error"]["code"] == -32600


@pytest.mark.req("mcp.jsonrpc.protocol-errors")
def test_unknown_method_is_method_not_found(venue: VenueClient) -> None:
    assert venue.rpc("resources/list")["error"]["code"] == -32601


@pytest.mark.req("mcp.jsonrpc.protocol-errors")
def test_unknown_tool_is_a_protocol_error_not_a_result(venue: VenueClient) -> None:
    message = venue.rpc("tools/call", {"name": "transfer_funds", "arguments": {}})
    assert message["error"]["code"] == -32602
    assert "transfer_funds" in message["error"]["message"]


def test_wrong_content_type_and_oversized_bodies_are_refused(venue: VenueClient) -> None:
    response = venue.http.post(
        venue.mcp_url, content=b"{}", headers={**venue.headers(), "content-type": "text/plain"}
    )
    assert response.status_code == 415
    huge = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"' + b"x" * 1_100_000 + b'"}}'
    response = venue.http.post(venue.mcp_url, content=huge, headers=venue.headers())
    assert response.status_code == 413


@pytest.mark.req("mcp.http.dns-rebinding")
def test_foreign_host_or_origin_is_refused_before_anything_else(venue: VenueClient) -> None:
    message = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    foreign_host = venue.post(message, host="evil.example.com")
    assert foreign_host.status_code == 421
    foreign_origin = venue.post(message, origin="http://evil.example.com")
    assert foreign_origin.status_code == 403
    assert venue.post(message, origin="http://localhost:3000").status_code == 200


@pytest.mark.req("mcp.tools.list.paginated")
def test_tools_list_is_paginated_and_every_page_drains_to_the_full_surface(
    venue: VenueClient,
) -> None:
    names: list[str] = []
    cursor: str | None = None
    pages = 0
    while True:
        pages += 1
        assert pages <= 20
        result = venue.rpc("tools/list", {"cursor": cursor} if cursor else {})["result"]
        names += [tool["name"] for tool in result["tools"]]
        cursor = result.get("nextCursor")
        if cursor is None:
            break
    assert pages > 1
    assert len(names) == len(set(names)) == 82


@pytest.mark.req("mcp.tools.list.paginated")
def test_a_forged_cursor_is_refused(venue: VenueClient) -> None:
    assert venue.rpc("tools/list", {"cursor": "bm9wZTox"})["error"]["code"] == -32602
    assert venue.rpc("tools/list", {"cursor": "!!!"})["error"]["code"] == -32602


def test_a_dropped_connection_reaches_the_client_as_a_transport_error() -> None:
    with running_venue() as client:
        client.faults(drop_before=1)
        with pytest.raises(httpx2.TransportError):
            client.post({"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert client.rpc("ping")["result"] == {}
