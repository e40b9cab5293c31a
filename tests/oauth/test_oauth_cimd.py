"""Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a client id
that is an https URL is fetched from that URL over real TLS on loopback — within a timeout,
under a size cap, never redirected, https only, never from a private address unless the
owner allowed it — kept as its caching headers say, and used only when the document names
its own URL and usable redirect URIs. Each refusal by its code."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cimd_testkit import Answer, Documents, documents, trusting

from ordergate.core import SteppedClock
from ordergate.oauth import ClientDocuments, DocumentRefused, metadata_url_problem
from ordergate.oauth._cimd import MAX_DOCUMENT_BYTES

pytestmark = [pytest.mark.anyio, pytest.mark.req("oauth.cimd.fetch-fenced")]

REDIRECT = "http://127.0.0.1:33418/callback"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Documents]:
    with documents(tmp_path) as server:
        yield server


@pytest.fixture
def clock() -> SteppedClock:
    return SteppedClock(start=datetime(2026, 12, 1, 15, 0, tzinfo=UTC))


def _fetcher(served: Documents, clock: SteppedClock, **settings: object) -> ClientDocuments:
    options: dict[str, object] = {"allow_private": True, "ssl_context": trusting(served.files)}
    options.update(settings)
    return ClientDocuments(clock=clock, **options)  # type: ignore[arg-type]


async def _refused(documents: ClientDocuments, url: str) -> str:
    with pytest.raises(DocumentRefused) as refused:
        await documents.client(url)
    assert url not in str(refused.value)
    return refused.value.code


async def test_a_document_naming_its_url_is_the_client_it_describes(
    served: Documents, clock: SteppedClock
) -> None:
    url = served.document("/client.json", client_name="Claude", redirect_uris=[REDIRECT])
    client = await _fetcher(served, clock).client(url)
    assert client.client_id == url
    assert client.redirect_uris == (REDIRECT,)
    assert client.client_name == "Claude (localhost)"


async def test_a_document_on_a_loopback_address_is_refused_unless_the_owner_allowed_it(
    served: Documents, clock: SteppedClock
) -> None:
    url = served.document("/client.json", redirect_uris=[REDIRECT])
    assert await _refused(_fetcher(served, clock, allow_private=False), url) == "address"
    assert served.requests == {}  # refused before anything was sent


@pytest.mark.parametrize(
    "addresses",
    [["10.0.0.7"], ["169.254.169.254"], ["::1"], ["::ffff:127.0.0.1"], ["fe80::1"],
     ["93.184.216.34", "192.168.1.1"], ["224.0.0.1"], ["0.0.0.0"]],
)  # fmt: skip
async def test_a_host_with_any_private_loopback_or_link_local_address_is_refused(
    served: Documents, clock: SteppedClock, addresses: list[str]
) -> None:
    async def resolve(host: str, port: int) -> Sequence[str]:
        return addresses

    fetcher = _fetcher(served, clock, allow_private=False, resolve=resolve)
    assert await _refused(fetcher, "https://client.example/client.json") == "address"


@pytest.mark.parametrize(
    "url",
    [
        "http://localhost/client.json",  # not https
        "https://localhost",  # no path
        "https://localhost/",
        "https://user:pw@localhost/client.json",
        "https://localhost/client.json#x",
        "https://localhost/a/../client.json",
        "https://localhost:99999/client.json",
        "https://localhost/" + "a" * 2000,
        "https:///client.json",
        "https://localhost/caf\u00e9.json",
        "https://localhost/a b.json",
    ],
)
async def test_a_url_that_cannot_name_a_document_is_refused_without_a_fetch(
    served: Documents, clock: SteppedClock, url: str
) -> None:
    assert metadata_url_problem(url) is not None
    assert await _refused(_fetcher(served, clock), url) == "url"
    assert served.requests == {}


async def test_a_redirect_is_refused_not_followed(served: Documents, clock: SteppedClock) -> None:
    target = served.document("/real.json", redirect_uris=[REDIRECT])
    served.answers["/client.json"] = Answer(302, {"location": target})
    assert await _refused(_fetcher(served, clock), served.url("/client.json")) == "redirect"
    assert "/real.json" not in served.requests


@pytest.mark.parametrize("stream", [False, True], ids=["content-length", "chunked"])
async def test_a_document_over_the_size_cap_is_refused(
    served: Documents, clock: SteppedClock, stream: bool
) -> None:
    padding = "x" * MAX_DOCUMENT_BYTES
    url = served.document("/client.json", redirect_uris=[REDIRECT], padding=padding)
    served.answers["/client.json"].stream = stream
    assert await _refused(_fetcher(served, clock), url) == "too_big"
    larger = _fetcher(served, clock, max_bytes=2 * MAX_DOCUMENT_BYTES)
    assert (await larger.client(url)).client_id == url


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"client_id": "https://localhost/other.json"}, "client_id"),
        ({"redirect_uris": []}, "redirect_uris"),
        ({"redirect_uris": ["http://evil.example/cb"]}, "redirect_uris"),
        ({"client_secret": "s3cret"}, "not_public"),
        ({"token_endpoint_auth_method": "client_secret_basic"}, "not_public"),
        ({"client_name": "Claude\u202e"}, "client_metadata"),
        ({"application_type": "desktop"}, "client_metadata"),
    ],
)
async def test_a_document_that_is_not_a_usable_public_client_is_refused(
    served: Documents, clock: SteppedClock, fields: dict[str, object], code: str
) -> None:
    url = served.document("/client.json", None, **{"redirect_uris": [REDIRECT], **fields})
    assert await _refused(_fetcher(served, clock), url) == code


@pytest.mark.parametrize(
    ("answer", "code"),
    [
        (Answer(404), "status"),
        (Answer(200, {"content-type": "application/json"}, b"[1, 2]"), "not_json"),
        (Answer(200, {"content-type": "application/json"}, b"{not json"), "not_json"),
    ],
)
async def test_an_answer_that_is_not_a_document_is_refused(
    served: Documents, clock: SteppedClock, answer: Answer, code: str
) -> None:
    served.answers["/client.json"] = answer
    assert await _refused(_fetcher(served, clock), served.url("/client.json")) == code


async def test_a_server_the_trust_path_does_not_vouch_for_is_refused(
    served: Documents, clock: SteppedClock
) -> None:
    url = served.document("/client.json", redirect_uris=[REDIRECT])
    fetcher = ClientDocuments(clock=clock, allow_private=True)  # the system's trust store
    assert await _refused(fetcher, url) == "fetch"


async def test_a_fetch_that_does_not_finish_in_time_or_cannot_connect_is_refused(
    served: Documents, clock: SteppedClock
) -> None:
    url = served.document("/client.json", redirect_uris=[REDIRECT])
    assert await _refused(_fetcher(served, clock, timeout=0), url) == "timeout"

    async def resolve(host: str, port: int) -> Sequence[str]:
        return ["127.0.0.1"]

    # Nothing listens on port 9 (discard) on this machine: refused, not retried.
    refusing = _fetcher(served, clock, resolve=resolve)
    assert await _refused(refusing, "https://localhost:9/client.json") == "fetch"


async def test_a_document_is_kept_for_its_max_age_and_fetched_again_after(
    served: Documents, clock: SteppedClock
) -> None:
    url = served.document(
        "/client.json", {"cache-control": "public, max-age=60"}, redirect_uris=[REDIRECT]
    )
    fetcher = _fetcher(served, clock)
    await fetcher.client(url)
    served.document("/client.json", redirect_uris=[REDIRECT, "http://127.0.0.1:1/cb"])
    clock.advance(timedelta(seconds=59))
    assert (await fetcher.client(url)).redirect_uris == (REDIRECT,)
    assert served.requests["/client.json"] == 1
    clock.advance(timedelta(seconds=1))
    assert len((await fetcher.client(url)).redirect_uris or ()) == 2
    assert served.requests["/client.json"] == 2


@pytest.mark.parametrize("header", ["no-store", "no-cache", "max-age=0"])
async def test_a_document_that_may_not_be_kept_is_fetched_every_time(
    served: Documents, clock: SteppedClock, header: str
) -> None:
    url = served.document("/client.json", {"cache-control": header}, redirect_uris=[REDIRECT])
    fetcher = _fetcher(served, clock)
    await fetcher.client(url)
    await fetcher.client(url)
    assert served.requests["/client.json"] == 2


async def test_without_caching_headers_a_document_is_kept_five_minutes_and_a_refusal_not_at_all(
    served: Documents, clock: SteppedClock
) -> None:
    url = served.document("/client.json", redirect_uris=[REDIRECT])
    fetcher = _fetcher(served, clock)
    await fetcher.client(url)
    clock.advance(timedelta(minutes=4, seconds=59))
    await fetcher.client(url)
    assert served.requests["/client.json"] == 1
    clock.advance(timedelta(seconds=1))
    await fetcher.client(url)
    assert served.requests["/client.json"] == 2
    bad = served.url("/bad.json")
    served.answers["/bad.json"] = Answer(200, {}, json.dumps({"client_id": "x"}).encode())
    assert await _refused(fetcher, bad) == "client_id"
    assert await _refused(fetcher, bad) == "client_id"
    assert served.requests["/bad.json"] == 2


@pytest.mark.parametrize("answer", [OSError("no such host"), []], ids=["error", "nothing"])
async def test_a_host_name_that_does_not_resolve_is_refused(
    served: Documents, clock: SteppedClock, answer: OSError | list[str]
) -> None:
    async def resolve(host: str, port: int) -> Sequence[str]:
        if isinstance(answer, OSError):
            raise answer
        return answer

    fetcher = _fetcher(served, clock, resolve=resolve)
    assert await _refused(fetcher, "https://nowhere.example/client.json") == "fetch"
