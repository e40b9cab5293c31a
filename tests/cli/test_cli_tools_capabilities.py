"""``tools capabilities`` and ``tools readiness``: from a file, and live against the venue."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import typer
from capability_testkit import CRYPTO_TOOL_NAMES, FOREIGN, sandbox_tools, tool, without
from client_testkit import write_minted
from reference import REFERENCE
from typer.testing import CliRunner, Result
from venue_testkit import VenueClient, running_venue

from ordergate.cli._tools_capabilities import (
    capabilities_command,
    readiness_command,
)
from ordergate.discovery import Snapshot
from ordergate.discovery._capabilities import CAPABILITIES

WIDE = {"COLUMNS": "200"}

app = typer.Typer()
app.command("capabilities")(capabilities_command)
app.command("readiness")(readiness_command)


def invoke(*args: str, **env: str) -> Result:
    return CliRunner().invoke(app, list(args), env={**WIDE, **env})


def rows(output: str) -> dict[str, str]:
    """The capabilities table as {capability: tool}."""
    table: dict[str, str] = {}
    for line in output.splitlines():
        cells = [cell.strip() for cell in line.strip("│ ").split("│")]
        if len(cells) == 2 and cells[0] in CAPABILITIES:
            table[cells[0]] = cells[1]
    return table


def snapshot(path: Path, tools: list[dict[str, Any]]) -> Path:
    """A snapshot file of ``tools``, written as ``ordergate tools snapshot`` writes one."""
    taken = Snapshot.from_listing(tools, captured_at=datetime(2026, 12, 1, 15, 0, tzinfo=UTC))
    path.write_text(taken.to_json())
    return path


@pytest.fixture(scope="module")
def sandbox() -> Iterator[VenueClient]:
    with running_venue() as client:
        yield client


def test_capabilities_from_a_snapshot_file_name_every_tool(tmp_path: Path) -> None:
    result = invoke("capabilities", str(snapshot(tmp_path / "s.json", sandbox_tools())))
    assert result.exit_code == 0, result.output
    table = rows(result.output)
    assert set(table) == set(CAPABILITIES)
    assert table["place_order"] == "place_equity_order"
    assert table["crypto_place"] == "place_crypto_order"
    assert "82 tools" in result.output


def test_capabilities_from_the_reference_contract_show_a_dash_for_what_is_missing() -> None:
    result = invoke("capabilities", str(REFERENCE / "contract-1.7.0.json"))
    assert result.exit_code == 0, result.output
    table = rows(result.output)
    assert table["review_order"] == "review_equity_order"
    assert table["crypto_place"] == "—"


def test_capabilities_from_the_reference_inventory_resolve_the_crypto_tools() -> None:
    result = invoke("capabilities", str(REFERENCE / "inventory-2026-09-21.json"))
    assert result.exit_code == 0, result.output
    assert rows(result.output)["crypto_preview"] == "preview_crypto_order"


def test_an_ambiguous_capability_is_shown_with_its_candidates(tmp_path: Path) -> None:
    tools = [
        tool("submit_stock_order", "symbol", "side"),
        tool("place_share_order", "ticker", "side"),
    ]
    result = invoke("capabilities", str(snapshot(tmp_path / "s.json", tools)))
    assert result.exit_code == 0, result.output
    assert rows(result.output)["place_order"] == "ambiguous: place_share_order, submit_stock_order"


def test_an_override_file_lets_a_pinned_tool_resolve(tmp_path: Path) -> None:
    tools = [tool("create_stock_order", "symbol", "side")]
    classes = tmp_path / "classes.toml"
    classes.write_text('[classes]\ncreate_stock_order = "money"\n')
    path = str(snapshot(tmp_path / "s.json", tools))
    assert rows(invoke("capabilities", path).output)["place_order"] == "—"
    result = invoke("capabilities", path, "--classes", str(classes))
    assert rows(result.output)["place_order"] == "create_stock_order"


def test_capabilities_live_from_the_venue_resolve_every_one(
    sandbox: VenueClient, tmp_path: Path
) -> None:
    write_minted(sandbox, tmp_path / "robinhood-tokens.json", expires_at=None)
    result = invoke("capabilities", "--url", sandbox.mcp_url, ORDERGATE_HOME=str(tmp_path))
    assert result.exit_code == 0, result.output
    table = rows(result.output)
    assert set(table) == set(CAPABILITIES)
    assert "—" not in table.values()


@pytest.mark.req("discovery.readiness.exit-codes")
def test_readiness_exits_0_then_10_then_0_then_11_across_runs(tmp_path: Path) -> None:
    state = tmp_path / "readiness.json"
    equity = str(snapshot(tmp_path / "equity.json", without(sandbox_tools(), *CRYPTO_TOOL_NAMES)))
    full = str(snapshot(tmp_path / "full.json", sandbox_tools()))
    gone = str(snapshot(tmp_path / "gone.json", without(sandbox_tools(), "cancel_crypto_order")))
    expected = [
        (equity, 0, "first run"),
        (full, 10, "appeared: crypto_preview, crypto_place"),
        (full, 0, "crypto ready: yes"),
        (gone, 11, "disappeared: crypto_cancel"),
    ]
    for source, code, text in expected:
        result = invoke("readiness", "--state", str(state), source)
        assert result.exit_code == code, result.output
        assert text in result.output
        assert f"recorded in {state}" in result.output
    assert json.loads(state.read_text())["capabilities"]["crypto_cancel"] is None


def test_readiness_lists_each_crypto_capability_with_its_tool(tmp_path: Path) -> None:
    source = snapshot(tmp_path / "foreign.json", list(FOREIGN.values()))
    result = invoke("readiness", "--state", str(tmp_path / "r.json"), str(source))
    assert result.exit_code == 10
    assert "crypto_place    submit_crypto_trade" in result.output
    equity = snapshot(tmp_path / "equity.json", [FOREIGN["place_order"]])
    result = invoke("readiness", "--state", str(tmp_path / "other.json"), str(equity))
    assert result.exit_code == 0
    assert "crypto ready: no" in result.output
    assert "crypto_quotes   —" in result.output


@pytest.mark.req("discovery.readiness.exit-codes")
def test_readiness_live_from_the_venue_exits_10_on_first_sight_then_0(
    sandbox: VenueClient, tmp_path: Path
) -> None:
    write_minted(sandbox, tmp_path / "robinhood-tokens.json", expires_at=None)
    state = str(tmp_path / "readiness.json")
    args = ("readiness", "--state", state, "--url", sandbox.mcp_url)
    first = invoke(*args, ORDERGATE_HOME=str(tmp_path))
    assert first.exit_code == 10, first.output
    assert "crypto ready: yes" in first.output
    assert invoke(*args, ORDERGATE_HOME=str(tmp_path)).exit_code == 0


@pytest.mark.parametrize("command", ["capabilities", "readiness"])
def test_an_endpoint_without_a_login_exits_2_and_records_nothing(
    command: str, tmp_path: Path
) -> None:
    state = ("--state", str(tmp_path / "r.json")) if command == "readiness" else ()
    result = invoke(
        command, *state, "--url", "http://127.0.0.1:9/mcp", ORDERGATE_HOME=str(tmp_path)
    )
    assert result.exit_code == 2, result.output
    assert "login_required" in result.output
    assert not (tmp_path / "r.json").exists()


def test_a_token_file_outside_the_home_is_used_when_named(
    sandbox: VenueClient, tmp_path: Path
) -> None:
    tokens = tmp_path / "elsewhere" / "tokens.json"
    minted = write_minted(sandbox, tokens, expires_at=None)
    result = invoke(
        "capabilities",
        "--url",
        sandbox.mcp_url,
        "--token-file",
        str(tokens),
        ORDERGATE_HOME=str(tmp_path / "empty-home"),
    )
    assert result.exit_code == 0, result.output
    assert rows(result.output)["accounts"] == "get_accounts"
    assert minted.access_token.reveal() not in result.output


@pytest.mark.parametrize("command", ["capabilities", "readiness"])
def test_a_file_and_a_url_together_exit_2(command: str, tmp_path: Path) -> None:
    state = ("--state", str(tmp_path / "r.json")) if command == "readiness" else ()
    source = str(snapshot(tmp_path / "s.json", sandbox_tools()))
    result = invoke(command, *state, source, "--url", "http://127.0.0.1:9/mcp")
    assert result.exit_code == 2, result.output
    assert "--url" in result.output


def test_readiness_with_a_damaged_state_file_exits_2_and_keeps_it(tmp_path: Path) -> None:
    state = tmp_path / "r.json"
    state.write_text("{")
    source = str(snapshot(tmp_path / "s.json", sandbox_tools()))
    result = invoke("readiness", "--state", str(state), source)
    assert result.exit_code == 2, result.output
    assert state.read_text() == "{"


def test_a_bad_override_file_exits_2(tmp_path: Path) -> None:
    classes = tmp_path / "classes.toml"
    classes.write_text('[classes]\nget_x = "harmless"\n')
    source = str(snapshot(tmp_path / "s.json", sandbox_tools()))
    assert invoke("capabilities", source, "--classes", str(classes)).exit_code == 2


@pytest.mark.parametrize(
    "text",
    [
        "{",
        '{"nothing": []}',
        '{"tools": [{"inputSchema": {}}]}',
        '{"tools": ["get_accounts"]}',
        '{"tools": [{"name": "get_accounts"}]}',
        '{"tools": {"get_accounts": {"inputSchema": []}}}',
    ],
)
def test_a_file_that_is_not_a_snapshot_or_contract_exits_2_with_the_reason(
    tmp_path: Path, text: str
) -> None:
    path = tmp_path / "s.json"
    path.write_text(text)
    for command in (
        ["capabilities", str(path)],
        ["readiness", "--state", str(tmp_path / "r.json"), str(path)],
    ):
        result = invoke(*command)
        assert result.exit_code == 2, result.output
        assert "error:" in result.output


def test_a_missing_file_exits_2(tmp_path: Path) -> None:
    assert invoke("capabilities", str(tmp_path / "absent.json")).exit_code == 2


def test_a_url_given_as_the_file_argument_is_refused(tmp_path: Path) -> None:
    assert invoke("capabilities", "http://127.0.0.1:9/mcp/trading").exit_code == 2


def test_a_contract_file_resolves_what_its_nineteen_tools_offer() -> None:
    result = invoke("capabilities", str(REFERENCE / "contract-1.7.0.json"))
    assert result.exit_code == 0, result.output
    assert "19 tools listed" in result.output
    assert "place_equity_order" in result.output
