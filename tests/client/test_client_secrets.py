"""No token ever shows: a whole session with known token values, everything captured, scanned.

Login from the environment, connect, calls (typed and escape hatch), a refresh after a 401,
a business error, a refused refresh, and ``ordergate whoami``; logs at DEBUG for every logger
(httpx2 and the MCP SDK included), stdout/stderr, CLI output, exception messages and reprs,
and the repr of every object handed back.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pytest
from typer.testing import CliRunner
from venue_testkit import VenueClient, running_venue

from ordergate.cli import app
from ordergate.client import (
    BusinessError,
    Config,
    LoginRequired,
    TokenSet,
    connect,
    login,
    read_token_file,
    write_token_file,
)
from ordergate.core import Secret

BOUND_S = 60


async def whole_session(venue: VenueClient, config: Config) -> tuple[list[Any], TokenSet]:
    """Everything the client hands back over a session, for scanning; the refreshed set."""
    handed: list[Any] = []
    with anyio.fail_after(BOUND_S):
        handed.append(await login(config))
        handed.append(read_token_file(config.token_file))
        async with connect(config) as rh:
            handed.append(rh)
            handed.append(await rh.accounts.accounts())
            handed.append(await rh.market.quotes(["AAPL"]))
            handed.append(await rh.call("get_equity_quotes", {"symbols": ["MSFT"]}))
            venue.admin("tokens", {"expire_access_tokens": True})
            handed.append(await rh.accounts.agentic())  # refreshed after the 401
            refreshed = read_token_file(config.token_file)
            handed.append(refreshed)
            try:
                await rh.accounts.portfolio("000000000")
            except BusinessError as error:
                handed.append(error)
        # A refresh token the venue refuses: fail closed, and say nothing of it.
        spent = read_token_file(config.token_file)
        write_token_file(config.token_file, replace(spent, refresh_token=Secret("refused")))
        async with connect(config) as rh:
            venue.admin("tokens", {"expire_access_tokens": True})
            try:
                await rh.accounts.agentic()
            except LoginRequired as error:
                handed.append(error)
        write_token_file(config.token_file, spent)
    return handed, refreshed


@pytest.mark.req("client.secrets.never-shown")
def test_no_token_appears_in_logs_output_errors_or_reprs_over_a_whole_session(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    caplog.set_level(logging.DEBUG)
    for name in ("httpx2", "httpcore2", "mcp", "ordergate"):
        logging.getLogger(name).setLevel(logging.DEBUG)
    home = tmp_path / "home"
    with running_venue() as venue:
        minted = venue.admin("tokens", {})
        monkeypatch.setenv("ROBINHOOD_ACCESS_TOKEN", minted["access_token"])
        monkeypatch.setenv("ROBINHOOD_REFRESH_TOKEN", minted["refresh_token"])
        monkeypatch.setenv("ORDERGATE_HOME", str(home))
        config = Config(url=venue.mcp_url)
        handed, refreshed = anyio.run(whole_session, venue, config)
        monkeypatch.delenv("ROBINHOOD_ACCESS_TOKEN")
        monkeypatch.delenv("ROBINHOOD_REFRESH_TOKEN")
        whoami = CliRunner().invoke(app, ["whoami", "--url", venue.mcp_url])
        assert whoami.exit_code == 0, whoami.output
        final = read_token_file(config.token_file)

    secrets = {
        minted["access_token"],
        minted["refresh_token"],
        refreshed.access_token.reveal(),
        (refreshed.refresh_token or Secret("-")).reveal(),
        final.access_token.reveal(),
        (final.refresh_token or Secret("-")).reveal(),
    }
    assert refreshed.access_token.reveal() != minted["access_token"]  # a refresh did happen
    assert isinstance(handed[-2], BusinessError)
    assert isinstance(handed[-1], LoginRequired)

    captured = capsys.readouterr()
    records = [
        f"{record.name} {record.getMessage()} {record.args!r} {record.exc_text or ''}"
        for record in caplog.records
    ]
    assert any(record.name.startswith("httpx2") for record in caplog.records)
    # The session no longer runs through the MCP SDK (the handshake is plain JSON-RPC over
    # httpx2), so there are no ``mcp`` records to scan; any that appear are scanned below.
    errors = [h for h in handed if isinstance(h, BaseException)]
    shown = [
        caplog.text,
        *records,
        captured.out,
        captured.err,
        whoami.output,
        *(f"{type(e).__name__}: {e} {e!r} {e.args!r}" for e in errors),
        *(repr(h) for h in handed),
        *(str(h) for h in handed),
        repr(config),
    ]
    for secret in secrets:
        for text in shown:
            assert secret not in text
