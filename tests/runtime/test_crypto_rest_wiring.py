"""The REST rail in the composition: a Crypto Trading API key stored in the home (as
``ordergate login --crypto-api`` writes it) gives a live run the REST lane beside the MCP's,
on the embedded sandbox with the stored key's own signatures; without a key there is none,
and a damaged key file stops the run naming the file."""

from __future__ import annotations

import base64
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from uuid import uuid4

import anyio
import owner_testkit
import pytest
from client_testkit import rhs_account_number, write_minted
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat
from venue_testkit import running_venue

from ordergate.client.crypto_rest import ApiKey, CryptoKeyRequired, write_key_file
from ordergate.core import ConfigError, Secret, SecurityClock, Side, SteppedClock
from ordergate.policy import CryptoProposal, parse_policy
from ordergate.runtime import Settings, open_guard, open_upstream
from ordergate.venues import CryptoTicket

POLICY = """\
mode = "live"
real_money = true
approval = "never"
[limits]
max_order_usd = "3000"
max_daily_usd = "10000"
[symbols]
allow = ["SPY"]
"""
START = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
BOUND_S = 30


def settings(home: Path) -> Settings:
    (home / "policy.toml").write_text(POLICY, encoding="utf-8")
    return Settings(
        home=home,
        policy_path=home / "policy.toml",
        policy_given=True,
        db_url=f"sqlite:///{home / 'ledger.db'}",
        upstream_url=None,
        sandbox=True,
    )


def stored_key(home: Path) -> ApiKey:
    seed = Ed25519PrivateKey.generate().private_bytes(
        Encoding.Raw, PrivateFormat.Raw, NoEncryption()
    )
    private = base64.b64encode(seed).decode("ascii")
    owner_testkit.SECRETS.add(private)
    key = ApiKey(Secret("rh-api-stored-by-login"), Secret(private))
    write_key_file(home / "robinhood-crypto-api.json", key)
    return key


@pytest.mark.anyio
async def test_a_stored_key_gives_a_live_run_the_rest_lane_signing_with_that_key(
    tmp_path: Path,
) -> None:
    stored_key(tmp_path)
    with anyio.fail_after(BOUND_S):
        async with open_guard(
            settings(tmp_path),
            clock=SteppedClock(start=START),
            security_clock=SecurityClock(SteppedClock(start=START)),
            in_force=(parse_policy(POLICY), None),
        ) as running:
            assert running.arming.live, running.arming.reason
            lanes = running.guard.venue.crypto
            assert lanes is not None and sorted(lanes.lanes) == ["mcp", "rest"]
            assert running.upstream.crypto_rest is not None
            assert "crypto REST rail: http://127.0.0.1:" in running.upstream.note
            rest = lanes.named("rest")
            assert rest is not None
            account = (await running.upstream.rh.accounts.agentic()).rhs_account_number
            assert account is not None
            proposal = CryptoProposal(pair="BTC-USD", side=Side.BUY, quote_amount=Decimal("10"))
            order = CryptoTicket(ref_id=uuid4(), account=account, proposal=proposal)
            review = await rest.review(order)
    assert review.terms.notional == Decimal("10")


@pytest.mark.anyio
async def test_without_a_stored_key_a_live_run_has_the_mcp_lane_only(tmp_path: Path) -> None:
    with anyio.fail_after(BOUND_S):
        async with open_guard(
            settings(tmp_path),
            clock=SteppedClock(start=START),
            in_force=(parse_policy(POLICY), None),
        ) as running:
            lanes = running.guard.venue.crypto
            assert lanes is not None and list(lanes.lanes) == ["mcp"]
            assert running.upstream.crypto_rest is None


@pytest.mark.anyio
async def test_a_damaged_key_file_stops_the_run_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "robinhood-crypto-api.json").write_text("{}", encoding="utf-8")
    with anyio.fail_after(BOUND_S), pytest.raises(CryptoKeyRequired, match="robinhood-crypto"):
        async with open_guard(
            settings(tmp_path),
            clock=SteppedClock(start=START),
            in_force=(parse_policy(POLICY), None),
        ):
            pass


def test_the_rest_url_is_an_http_url_and_not_for_the_embedded_sandbox(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ORDERGATE_CRYPTO_REST_URL", "ftp://x")
    with pytest.raises(ConfigError) as bad:
        Settings.resolve(upstream="https://mcp.example")
    assert bad.value.key == "ORDERGATE_CRYPTO_REST_URL"
    monkeypatch.setenv("ORDERGATE_CRYPTO_REST_URL", "https://rest.example")
    assert (
        Settings.resolve(upstream="https://mcp.example").crypto_rest_url == "https://rest.example"
    )
    with pytest.raises(ConfigError) as sandboxed:
        Settings.resolve(sandbox=True)
    assert sandboxed.value.key == "ORDERGATE_CRYPTO_REST_URL"


@pytest.mark.anyio
async def test_a_signed_in_upstream_takes_the_stored_key_to_the_configured_rest_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORDERGATE_HOME", str(tmp_path))
    with running_venue() as venue:
        write_minted(venue, tmp_path / "robinhood-tokens.json", expires_at=None)
        issued = venue.admin("crypto_api_keys", {})
        owner_testkit.SECRETS.add(issued["private_key"])
        key = ApiKey(Secret(issued["api_key"]), Secret(issued["private_key"]))
        write_key_file(tmp_path / "robinhood-crypto-api.json", key)
        monkeypatch.setenv("ORDERGATE_CRYPTO_REST_URL", venue.base_url)
        configured = Settings.resolve(policy=tmp_path / "policy.toml")
        with anyio.fail_after(BOUND_S):
            async with open_upstream(configured, clock=SteppedClock(start=START)) as upstream:
                assert upstream.crypto_rest is not None
                assert upstream.crypto_rest.origin == venue.base_url
                account = await upstream.crypto_rest.account()
        assert account.account_number == rhs_account_number(venue)
        assert upstream.note == f"upstream: {venue.mcp_url}; crypto REST rail: {venue.base_url}"
