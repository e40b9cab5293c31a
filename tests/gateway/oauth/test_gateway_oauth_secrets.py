"""No code, token, nonce or passphrase is logged, stored, or echoed by a refusal."""

from __future__ import annotations

import logging
from pathlib import Path

import httpx2
import pytest
from gateway_oauth_kit import location_params, serve
from owner_testkit import PASSPHRASE, enrol

# The test's own HTTP client logs what it receives (a redirect's Location carries its code):
# that is the owner receiving its value, not the server logging it.
CLIENT_SIDE = ("httpx2", "httpcore2")


def test_no_value_minted_in_a_run_appears_in_its_logs_output_database_or_refusals(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.DEBUG)
    refusals: list[httpx2.Response] = []
    enrol(tmp_path / "home", passphrase=PASSPHRASE)
    with serve(tmp_path, owner=True) as gateway:
        flow = gateway.flow()
        form = flow.form()
        refusals.append(flow.decide({**form, "owner_code": "not it"}))
        refusals.append(flow.decide({**form, "owner_code": PASSPHRASE}))  # spent nonce
        form = flow.form()
        code = location_params(flow.decide({**form, "owner_code": PASSPHRASE}))["code"]
        gateway.minted.append(code)
        tokens = flow.exchange(code).json()
        refusals.append(flow.exchange(code))  # replay: the connection ends
        refusals.append(gateway.mcp(tokens["access_token"]))

        second = gateway.flow()
        exchanges = []
        for verifier in ("x" * 43, second.verifier):  # a wrong verifier, then the right one
            form = second.form()
            code = location_params(second.decide({**form, "owner_code": PASSPHRASE}))["code"]
            gateway.minted.append(code)
            exchanges.append(second.exchange(code, code_verifier=verifier))
        refusals.append(exchanges[0])
        first = exchanges[1].json()
        rotated = second.refresh(first["refresh_token"]).json()
        refusals.append(second.refresh(rotated["refresh_token"], client_id=flow.client_id))
        refusals.append(second.refresh(first["refresh_token"]))  # reuse: the connection ends
        refusals.append(second.revoke(rotated["access_token"]))
        rows = str(gateway.rows())
        minted = list(gateway.minted)

    # The run minted what the scan looks for: 4 nonces, 3 codes, 3 token pairs.
    assert len(minted) == 4 + 3 + 6 and len(set(minted)) == len(minted)
    assert all(response.status_code in (200, 400, 401, 403) for response in refusals)
    server_side = [r for r in caplog.records if not r.name.startswith(CLIENT_SIDE)]
    assert any(r.name.startswith(CLIENT_SIDE) for r in caplog.records)
    messages = [record.getMessage() for record in server_side]
    assert "an authorization code was presented twice: its connection ended" in messages
    assert "a rotated refresh token was presented again: its connection ended" in messages
    assert "a consent was refused: owner_code_wrong" in messages

    captured = capfd.readouterr()
    handler = caplog.handler
    logged = "\n".join([*map(handler.format, server_side), *messages, captured.out, captured.err])
    for value in [*minted, PASSPHRASE]:
        assert value not in logged
        assert value not in rows
        for response in refusals:
            assert value not in response.text
            assert value not in str(response.headers)
