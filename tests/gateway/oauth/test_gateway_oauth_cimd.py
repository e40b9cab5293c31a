"""A client that names itself by its metadata document's URL (CIMD) goes through the
gateway's whole flow with no registration — consent page, code, token, refresh, the MCP
endpoint — against a real TLS document server on loopback (allowed by the owner, trusted by
the path given), on SQLite and on Postgres with a URL past the old 64-character columns; a
refused document is an HTML 400, never a redirect."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from cimd_testkit import Documents, documents, trusting
from gateway_oauth_kit import REDIRECT, START, Gateway, serve
from pg_testkit import database

from ordergate.core import SteppedClock
from ordergate.oauth import ClientDocuments

pytestmark = pytest.mark.req("oauth.cimd.fetch-fenced")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Documents]:
    with documents(tmp_path) as server:
        yield server


@pytest.fixture(params=["sqlite", "postgres"])
def ledger_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with database(request.param, tmp_path) as url:
        yield url


@contextmanager
def _gateway(
    tmp_path: Path, served: Documents, *, allow_private: bool = True, ledger_url: str | None = None
) -> Iterator[Gateway]:
    clock = SteppedClock(start=START)
    fetcher = ClientDocuments(
        clock=clock, allow_private=allow_private, ssl_context=trusting(served.files)
    )
    with serve(tmp_path, clock=clock, client_documents=fetcher, ledger_url=ledger_url) as gateway:
        yield gateway


def test_the_metadata_says_client_id_metadata_documents_are_supported(
    tmp_path: Path, served: Documents
) -> None:
    with _gateway(tmp_path, served) as gateway:
        document = gateway.http.get("/.well-known/oauth-authorization-server").json()
        assert document["client_id_metadata_document_supported"] is True
        assert "registration_endpoint" in document  # registration is kept beside it


def test_a_client_named_by_its_document_url_gets_tokens_without_registering(
    tmp_path: Path, served: Documents, ledger_url: str
) -> None:
    path = "/clients/" + "long-name-" * 8 + "metadata.json"  # a URL past 64 characters
    url = served.document(path, client_name="Claude", redirect_uris=[REDIRECT])
    assert len(url) > 64
    with _gateway(tmp_path, served, ledger_url=ledger_url) as gateway:
        flow = gateway.flow(url)
        page = flow.page()
        assert page.status_code == 200 and "Claude (localhost)" in page.text
        tokens = flow.tokens()
        assert gateway.mcp(tokens["access_token"]).json()["client"] == url
        assert flow.refresh(tokens["refresh_token"]).status_code == 200
        assert gateway.rows()["gateway_clients"] == []  # nothing registered
        # A registered client beside it goes through as before.
        registered = gateway.flow()
        assert registered.tokens()["access_token"]


@pytest.mark.parametrize("problem", ["private", "client_id", "redirect"])
def test_a_refused_document_is_an_html_400_and_nothing_is_redirected(
    tmp_path: Path, served: Documents, problem: str
) -> None:
    url = served.document("/client.json", redirect_uris=[REDIRECT])
    if problem == "client_id":
        served.document("/client.json", None, client_id=served.url("/x"), redirect_uris=[REDIRECT])
    if problem == "redirect":
        served.document("/client.json", redirect_uris=["http://127.0.0.1:1/elsewhere"])
    with _gateway(tmp_path, served, allow_private=problem != "private") as gateway:
        page = gateway.flow(url).page()
        assert page.status_code == 400 and "location" not in page.headers
        assert gateway.rows()["gateway_pending"] == []
