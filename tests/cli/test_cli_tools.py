"""``ordergate tools snapshot | list | drift`` against files and a venue over loopback."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from client_testkit import venue, wrapped_venue, write_minted
from reference import CONTRACT, INVENTORY
from typer.testing import CliRunner, Result
from venue_testkit import VenueClient

from ordergate.cli import app
from ordergate.client import read_token_file
from ordergate.discovery import Snapshot, load_file
from ordergate.inventory import load_inventory

WIDE = {"COLUMNS": "200"}
HEX = frozenset("0123456789abcdef")


@pytest.fixture(scope="module")
def sandbox() -> Iterator[VenueClient]:
    with venue() as client:
        yield client


@pytest.fixture
def token_file(sandbox: VenueClient, tmp_path: Path) -> Path:
    path = tmp_path / "tokens.json"
    write_minted(sandbox, path, expires_at=None)
    return path


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, ["tools", *args], env=WIDE)


def tokens_of(token_file: Path) -> list[str]:
    tokens = read_token_file(token_file)
    assert tokens.refresh_token is not None
    return [tokens.access_token.reveal(), tokens.refresh_token.reveal()]


def write_snapshot(path: Path, snapshot: Snapshot) -> str:
    path.write_text(snapshot.to_json())
    return str(path)


def surface(*descriptors: dict[str, Any]) -> Snapshot:
    return Snapshot.from_listing(descriptors, captured_at=None, source="test")


def tool(name: str, **properties: Any) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties, "additionalProperties": False}
    return {"name": name, "description": f"{name}.", "inputSchema": schema}


STRING = {"type": "string"}


class ListingRewriter:
    """ASGI wrapper that passes ``tools/list`` answers through ``rewrite(tools, bearer)``:
    what a misbehaving upstream could send."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.rewrite: Callable[[list[dict[str, Any]], str], list[dict[str, Any]]] = (
            lambda tools, _: tools
        )
        self.rewritten = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        listing = body and json.loads(body).get("method") == "tools/list"
        bearer = dict(scope["headers"]).get(b"authorization", b"").decode()[len("Bearer ") :]
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        if not listing:
            await self.app(scope, replay, send)
            return
        held: list[Any] = []

        async def hold(message: Any) -> None:
            held.append(message)

        await self.app(scope, replay, hold)
        start, *bodies = held
        answer = json.loads(b"".join(m.get("body", b"") for m in bodies))
        answer["result"]["tools"] = self.rewrite(answer["result"]["tools"], bearer)
        self.rewritten += 1
        payload = json.dumps(answer).encode()
        headers = [(k, v) for k, v in start["headers"] if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(payload)).encode()))
        await send({**start, "headers": headers})
        await send({"type": "http.response.body", "body": payload, "more_body": False})


@pytest.fixture(scope="module")
def rewriting() -> Iterator[tuple[VenueClient, ListingRewriter]]:
    with wrapped_venue(ListingRewriter) as pair:
        yield pair


# -- snapshot --------------------------------------------------------------------------------


@pytest.mark.req("discovery.snapshot.no-token")
def test_snapshot_of_the_sandbox_writes_all_82_tools_with_digests_and_no_token(
    sandbox: VenueClient, token_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "snapshot.json"
    result = invoke(
        "snapshot", "--url", sandbox.mcp_url, "--out", str(out), "--token-file", str(token_file)
    )
    assert result.exit_code == 0, result.output
    assert f"Wrote 82 tools of robinhood-trading 1.7.0 (protocol 2025-11-25) to {out}." in (
        result.output
    )
    text = out.read_text()
    document = json.loads(text)
    assert document["tool_count"] == 82
    assert [t["name"] for t in document["tools"]] == sorted(load_inventory())
    for entry in document["tools"]:
        for key in ("schema_sha256", "description_sha256"):
            assert len(entry[key]) == 64 and set(entry[key]) <= HEX, (entry["name"], key)
    for token in tokens_of(token_file):
        assert token not in text
        assert token not in result.output
    assert Snapshot.from_json(text).tool_count == 82


@pytest.mark.req("discovery.snapshot.sanity")
def test_snapshot_of_an_empty_listing_exits_2_with_the_reason_and_writes_nothing(
    rewriting: tuple[VenueClient, ListingRewriter], tmp_path: Path
) -> None:
    client, rewriter = rewriting
    token_file = tmp_path / "tokens.json"
    write_minted(client, token_file, expires_at=None)
    rewriter.rewrite = lambda tools, _: []
    out = tmp_path / "snapshot.json"
    result = invoke(
        "snapshot", "--url", client.mcp_url, "--out", str(out), "--token-file", str(token_file)
    )
    assert result.exit_code == 2
    assert "(no_tools)" in result.output
    assert not out.exists()


@pytest.mark.req("discovery.snapshot.sanity")
def test_snapshot_of_a_tool_whose_input_is_not_an_object_schema_exits_2(
    rewriting: tuple[VenueClient, ListingRewriter], tmp_path: Path
) -> None:
    client, rewriter = rewriting
    token_file = tmp_path / "tokens.json"
    write_minted(client, token_file, expires_at=None)

    def flatten(tools: list[dict[str, Any]], _: str) -> list[dict[str, Any]]:
        return [
            {**t, "inputSchema": {"type": "string"}} if t["name"] == "search" else t for t in tools
        ]

    rewriter.rewrite = flatten
    out = tmp_path / "snapshot.json"
    result = invoke(
        "snapshot", "--url", client.mcp_url, "--out", str(out), "--token-file", str(token_file)
    )
    assert result.exit_code == 2
    assert "search: inputSchema is not an object schema" in result.output
    assert "(input_not_object)" in result.output
    assert not out.exists()


@pytest.mark.req("discovery.snapshot.no-token")
def test_snapshot_of_a_listing_that_echoes_the_bearer_token_is_refused(
    rewriting: tuple[VenueClient, ListingRewriter], tmp_path: Path
) -> None:
    client, rewriter = rewriting
    token_file = tmp_path / "tokens.json"
    write_minted(client, token_file, expires_at=None)
    before = rewriter.rewritten

    def echo(tools: list[dict[str, Any]], bearer: str) -> list[dict[str, Any]]:
        return [{**tools[0], "description": f"Signed in with {bearer}"}, *tools[1:]]

    rewriter.rewrite = echo
    out = tmp_path / "snapshot.json"
    result = invoke(
        "snapshot", "--url", client.mcp_url, "--out", str(out), "--token-file", str(token_file)
    )
    assert rewriter.rewritten > before
    assert result.exit_code == 2
    assert "(token_in_listing)" in result.output
    assert not out.exists()
    for token in tokens_of(token_file):
        assert token not in result.output


def test_snapshot_before_login_exits_2_saying_to_log_in(
    sandbox: VenueClient, tmp_path: Path
) -> None:
    out = tmp_path / "snapshot.json"
    result = invoke(
        "snapshot", "--url", sandbox.mcp_url, "--out", str(out),
        "--token-file", str(tmp_path / "absent.json"),
    )  # fmt: skip
    assert result.exit_code == 2
    assert "ordergate login" in result.output
    assert not out.exists()


def test_snapshot_refuses_a_url_that_is_not_http(tmp_path: Path) -> None:
    result = invoke("snapshot", "--url", str(CONTRACT), "--out", str(tmp_path / "s.json"))
    assert result.exit_code == 2
    assert "--url: must be an http(s) URL" in result.output


def test_snapshot_to_an_unwritable_place_exits_2(
    sandbox: VenueClient, token_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "missing" / "snapshot.json"
    result = invoke(
        "snapshot", "--url", sandbox.mcp_url, "--out", str(out), "--token-file", str(token_file)
    )
    assert result.exit_code == 2
    assert "cannot write" in result.output


def test_snapshot_requires_out() -> None:
    assert invoke("snapshot", "--url", "http://127.0.0.1:9/mcp").exit_code == 2


# -- list ------------------------------------------------------------------------------------


def rows(output: str) -> dict[str, list[str]]:
    found = {}
    for line in output.splitlines():
        cells = [cell.strip() for cell in line.strip("│ ").split("│")]
        if len(cells) == 4:
            found[cells[0]] = cells[1:]
    return found


def test_list_of_a_contract_file_shows_class_account_parameter_and_read_only_hint() -> None:
    result = invoke("list", str(CONTRACT))
    assert result.exit_code == 0, result.output
    table = rows(result.output)
    assert "19 tools from contract contract-1.7.0.json" in result.output
    assert table["place_equity_order"] == ["money", "account_number", "—"]
    assert table["get_equity_quotes"] == ["read", "—", "yes"]
    assert table["review_option_order"] == ["simulate", "account_number", "—"]
    assert len([name for name in table if name != "name"]) == 19


def test_list_of_the_live_sandbox_shows_every_tool_and_crypto_account_parameters(
    sandbox: VenueClient, token_file: Path
) -> None:
    result = invoke("list", "--url", sandbox.mcp_url, "--token-file", str(token_file))
    assert result.exit_code == 0, result.output
    table = rows(result.output)
    assert set(load_inventory()) <= set(table)
    assert table["place_crypto_order"][:2] == ["money", "rhs_account_number"]
    assert table["get_trade_approval_setting"] == ["read", "account_number", "yes"]
    for token in tokens_of(token_file):
        assert token not in result.output


def test_list_shows_an_explicit_false_read_only_hint_as_no(tmp_path: Path) -> None:
    hinted = {**tool("get_x"), "annotations": {"readOnlyHint": False}}
    path = write_snapshot(tmp_path / "s.json", surface(hinted))
    assert rows(invoke("list", path).output)["get_x"] == ["read", "—", "no"]


def test_list_of_a_snapshot_without_a_source_titles_the_count_alone(tmp_path: Path) -> None:
    unnamed = Snapshot.from_listing([tool("get_x")], captured_at=None)
    result = invoke("list", write_snapshot(tmp_path / "s.json", unnamed))
    assert result.exit_code == 0
    assert "1 tools" in result.output
    assert " from " not in result.output


def test_list_given_both_a_file_and_a_url_exits_2() -> None:
    result = invoke("list", str(CONTRACT), "--url", "http://127.0.0.1:9/mcp")
    assert result.exit_code == 2


def test_list_given_a_path_as_url_exits_2() -> None:
    result = invoke("list", "--url", str(CONTRACT))
    assert result.exit_code == 2
    assert "--url: must be an http(s) URL" in result.output


@pytest.mark.req("discovery.snapshot.sanity")
def test_list_of_a_file_that_fails_a_sanity_check_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"tools": [{"name": "", "inputSchema": {"type": "object"}}]}))
    result = invoke("list", str(path))
    assert result.exit_code == 2
    assert "(empty_name)" in result.output


def test_list_of_an_unrecognised_file_exits_2_naming_the_known_kinds(tmp_path: Path) -> None:
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"accounts": []}))
    result = invoke("list", str(path))
    assert result.exit_code == 2
    assert "not a snapshot" in result.output
    assert "(unrecognised)" in result.output


# -- drift -----------------------------------------------------------------------------------

OLD = surface(
    tool("get_quotes", symbols=STRING),
    tool("place_order", symbol=STRING, venue=STRING),
    tool("get_news", symbol=STRING),
)


def drift_files(tmp_path: Path, new: Snapshot) -> tuple[str, str]:
    return write_snapshot(tmp_path / "old.json", OLD), write_snapshot(tmp_path / "new.json", new)


ADDITIVE = surface(
    tool("get_quotes", symbols=STRING, bounds=STRING),
    tool("place_order", symbol=STRING, venue=STRING),
    tool("get_news", symbol=STRING),
    tool("cancel_order", order_id=STRING),
)
BREAKING = surface(
    tool("get_quotes", symbols=STRING),
    tool("place_order", symbol=STRING),
)
COSMETIC = surface(
    {**tool("get_quotes", symbols=STRING), "description": "Quotes, now described better."},
    tool("place_order", symbol=STRING, venue=STRING),
    tool("get_news", symbol=STRING),
)


@pytest.mark.req("discovery.drift.exit-codes")
def test_drift_of_identical_sides_exits_0_and_says_so(tmp_path: Path) -> None:
    old, _ = drift_files(tmp_path, OLD)
    result = invoke("drift", old, old)
    assert result.exit_code == 0, result.output
    assert "No drift." in result.output
    as_json = invoke("drift", old, old, "--json")
    assert as_json.exit_code == 0
    assert json.loads(as_json.stdout) == []


@pytest.mark.req("discovery.drift.exit-codes")
@pytest.mark.parametrize(
    ("new", "any_code", "breaking_code"),
    [(ADDITIVE, 1, 0), (COSMETIC, 1, 0), (BREAKING, 1, 1)],
    ids=["additive", "cosmetic", "breaking"],
)
def test_drift_exits_1_on_any_change_and_with_fail_on_breaking_only_on_a_breaking_one(
    tmp_path: Path, new: Snapshot, any_code: int, breaking_code: int
) -> None:
    old, new_path = drift_files(tmp_path, new)
    assert invoke("drift", old, new_path).exit_code == any_code
    assert invoke("drift", old, new_path, "--fail-on", "any").exit_code == any_code
    assert invoke("drift", old, new_path, "--fail-on", "breaking").exit_code == breaking_code
    assert invoke("drift", old, new_path, "--json", "--fail-on", "breaking").exit_code == (
        breaking_code
    )


@pytest.mark.req("discovery.drift.exit-codes")
def test_drift_with_an_unknown_fail_on_exits_2(tmp_path: Path) -> None:
    old, _ = drift_files(tmp_path, OLD)
    assert invoke("drift", old, old, "--fail-on", "cosmetic").exit_code == 2


@pytest.mark.req("discovery.drift.exit-codes")
def test_drift_with_a_side_that_cannot_be_loaded_exits_2(tmp_path: Path) -> None:
    old, _ = drift_files(tmp_path, OLD)
    missing = invoke("drift", old, str(tmp_path / "absent.json"))
    assert missing.exit_code == 2
    assert "(unreadable)" in missing.output
    (tmp_path / "other.json").write_text("{}")
    assert invoke("drift", str(tmp_path / "other.json"), old).exit_code == 2


def test_drift_text_groups_added_removed_and_changed_per_tool_with_class_and_compat(
    tmp_path: Path,
) -> None:
    new = surface(
        tool("get_quotes", symbols=STRING, bounds=STRING),
        tool("place_order", symbol=STRING),
        tool("cancel_order", order_id=STRING),
    )
    old, new_path = drift_files(tmp_path, new)
    result = invoke("drift", old, new_path)
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0].startswith("old: test, 3 tools")
    assert lines[1].startswith("new: test, 3 tools")
    body = "\n".join(lines[2:])
    assert body == (
        "\n"
        "ADDED\n"
        "  cancel_order [cancel] additive\n"
        "\n"
        "REMOVED\n"
        "  get_news [read] breaking\n"
        "\n"
        "CHANGED\n"
        "  get_quotes [read]\n"
        "    additive  input.bounds: optional input added\n"
        "  place_order [money]\n"
        "    breaking  input.venue: input property removed\n"
        "\n"
        "2 breaking, 2 additive, 0 cosmetic"
    )


def test_drift_json_prints_the_list_of_classified_changes(tmp_path: Path) -> None:
    old, new_path = drift_files(tmp_path, BREAKING)
    result = invoke("drift", old, new_path, "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout) == [
        {
            "tool": "get_news",
            "kind": "removed",
            "compat": "breaking",
            "detail": "tool removed",
            "path": "",
            "class": "read",
        },
        {
            "tool": "place_order",
            "kind": "changed",
            "compat": "breaking",
            "detail": "input property removed",
            "path": "input.venue",
            "class": "money",
        },
    ]


@pytest.mark.req("discovery.drift.classes")
def test_drift_of_the_sandbox_against_the_contract_is_only_tools_the_contract_does_not_list(
    sandbox: VenueClient, token_file: Path
) -> None:
    result = invoke(
        "drift", str(CONTRACT), sandbox.mcp_url, "--json", "--token-file", str(token_file)
    )
    assert result.exit_code == 1, result.output
    changes = json.loads(result.stdout)
    unlisted = set(load_inventory()) - set(json.loads(CONTRACT.read_text())["tools"])
    assert {change["tool"] for change in changes} == unlisted
    assert {(change["kind"], change["compat"]) for change in changes} == {("added", "additive")}
    breaking_only = invoke(
        "drift", str(CONTRACT), sandbox.mcp_url, "--fail-on", "breaking",
        "--token-file", str(token_file),
    )  # fmt: skip
    assert breaking_only.exit_code == 0, breaking_only.output
    assert "0 breaking, 63 additive, 0 cosmetic" in breaking_only.output


@pytest.mark.req("discovery.drift.classes")
def test_drift_of_the_sandbox_against_the_inventory_is_additive_only(
    sandbox: VenueClient, token_file: Path
) -> None:
    result = invoke(
        "drift", str(INVENTORY), sandbox.mcp_url, "--json", "--token-file", str(token_file)
    )
    assert result.exit_code == 1, result.output
    changes = json.loads(result.stdout)
    assert {change["compat"] for change in changes} == {"additive"}
    added = [change["tool"] for change in changes if change["kind"] == "added"]
    assert added == ["get_trade_approval_setting"]
    details = {change["detail"] for change in changes if change["kind"] == "changed"}
    assert details == {"output schema declared", "readOnlyHint gained"}
    # Every tool with a captured output schema now declares one.
    declared = {c["tool"] for c in changes if c["detail"] == "output schema declared"}
    with_outputs = {name for name, spec in load_inventory().items() if spec.in_contract}
    assert declared == with_outputs - {"get_trade_approval_setting"}


def test_drift_of_the_inventory_against_the_contract_reports_the_tools_it_lacks() -> None:
    result = invoke("drift", str(INVENTORY), str(CONTRACT), "--fail-on", "breaking")
    assert result.exit_code == 1
    removed = load_file(INVENTORY).names - load_file(CONTRACT).names
    assert f"{len(removed)} breaking" in result.output
    assert "  exercise_option [money] breaking" in result.output


# ================================================================================================
# `ordergate tools capabilities` and `ordergate tools readiness` (issue 4 §3) — reserved for the
# engineer writing those commands; their tests go below this line (or in
# tests/cli/test_cli_tools_capabilities.py).
# ================================================================================================
