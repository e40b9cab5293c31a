"""``ordergate serve``: its help, the options it refuses (exit 2, naming them), and the gateway
run as a real process."""

from __future__ import annotations

import os
import re
import signal
import socket
import sys
import threading
from pathlib import Path

import httpx2
import pytest
from process_testkit import EXIT_BOUND_S, serving_process
from typer.testing import CliRunner, Result

from ordergate.cli import app

WIDE = {"COLUMNS": "200"}


def invoke(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(app, list(args), env={**WIDE, **(env or {})})


def test_the_serve_help_explains_custody_redis_and_rate_limits() -> None:
    result = invoke("serve", "--help")
    assert result.exit_code == 0, result.output
    for option in (
        "--custody", "--redis", "--rate-limit", "--trusted-proxy", "--upstream", "--sandbox",
        "--port", "--sandbox-start",
    ):  # fmt: skip
        assert option in result.output
    assert "ORDERGATE_MASTER_SECRET" in result.output


@pytest.mark.req("gateway.limits.per-connection")
def test_the_rate_limit_help_says_each_connection_has_robinhoods_pace_and_why() -> None:
    result = invoke("serve", "--help")
    text = " ".join(result.output.replace("│", " ").split())
    for words in (
        "Each connection (each agent) has its own budget",
        "(default 4)",
        "burst (default 8)",
        "the pace Robinhood itself tolerates",
        "429 with Retry-After and a JSON-RPC error",
        "unauthenticated",
    ):
        assert words in text, words


@pytest.mark.parametrize(
    ("args", "env", "named"),
    [
        (["--rate-limit", "bogus=3"], {}, "rate-limit"),
        (["--rate-limit", "mcp=lots"], {}, "rate-limit mcp"),
        (["--rate-limit", "mcp=0"], {}, "rate-limit mcp"),
        (["--rate-limit", "burst=0"], {}, "rate-limit burst"),
        (["--custody", "shared"], {}, "custody"),
        (["--redis", "http://127.0.0.1:6379"], {}, "redis"),
        (["--trusted-proxy", "10.0.0.1", "--trusted-proxy", "proxy.lan"], {}, "trusted-proxy"),
        ([], {"ORDERGATE_MASTER_SECRET": "too-short"}, "ORDERGATE_MASTER_SECRET"),
        (["--sandbox-start", "tuesday"], {}, "sandbox_start: not an ISO-8601 instant"),
    ],
)
def test_serve_refuses_a_bad_setting_naming_it_with_exit_code_2(
    args: list[str], env: dict[str, str], named: str, tmp_path: Path
) -> None:
    result = invoke(
        "serve", "--sandbox", "--port", "0", *args, env={"ORDERGATE_HOME": str(tmp_path), **env}
    )
    assert result.exit_code == 2, result.output
    assert named in result.output
    assert "too-short" not in result.output


def test_serve_runs_the_gateway_on_the_url_it_names_until_ctrl_c(tmp_path: Path) -> None:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("ORDERGATE_") or key.startswith("ORDERGATE_TEST_")
    }
    env["ORDERGATE_HOME"] = str(tmp_path)
    command = [sys.executable, "-m", "ordergate", "serve", "--sandbox", "--port", "0"]
    with serving_process(command, b"Ctrl+C stops", env=env) as (process, banner):
        found = re.search(r"point MCP clients at (http://127\.0\.0\.1:\d+)/mcp", banner)
        assert found is not None, banner
        assert "embedded sandbox" in banner
        assert "wrote the default policy" in banner
        with httpx2.Client(timeout=EXIT_BOUND_S) as http:
            unauthorized = http.post(found.group(1) + "/mcp", json={})
            metadata = http.get(found.group(1) + "/.well-known/oauth-authorization-server")
        assert unauthorized.status_code == 401
        assert "resource_metadata=" in unauthorized.headers["www-authenticate"]
        assert metadata.json()["issuer"] == found.group(1)
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=EXIT_BOUND_S) == 0
        assert process.stderr is not None
        assert b"Traceback" not in process.stderr.read()


def test_serve_refuses_a_profile_that_would_loosen_the_policy_naming_file_and_key(
    tmp_path: Path,
) -> None:
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "greedy.yaml").write_text(
        "name: greedy\npermissions: [orders.place]\n"
        "policy:\n  limits:\n    max_order_usd: '99999'\n"
    )
    result = invoke("serve", "--sandbox", "--port", "0", env={"ORDERGATE_HOME": str(tmp_path)})
    assert result.exit_code == 2, result.output
    assert result.output.startswith("profile: ")
    assert "greedy.yaml" in result.output
    assert "max_order_usd" in result.output


@pytest.mark.req("cli.serve.listens-when-ready")
def test_serve_with_a_bad_profile_exits_before_its_port_ever_accepts_a_connection(
    tmp_path: Path,
) -> None:
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "greedy.yaml").write_text(
        "name: greedy\npermissions: [orders.place]\n"
        "policy:\n  limits:\n    max_order_usd: '99999'\n"
    )
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = threading.Event()
    connected: list[bool] = []

    def knock() -> None:
        # A script waiting for the port: it tries until serve has ended.
        while not done.is_set():
            with socket.socket() as client:
                if client.connect_ex(("127.0.0.1", port)) == 0:
                    connected.append(True)
                    return

    knocker = threading.Thread(target=knock)
    knocker.start()
    try:
        result = invoke(
            "serve", "--sandbox", "--port", str(port), env={"ORDERGATE_HOME": str(tmp_path)}
        )
    finally:
        done.set()
        knocker.join(timeout=EXIT_BOUND_S)
    assert result.exit_code == 2, result.output
    assert result.output.startswith("profile: ")
    assert connected == []


def _ledger_with_orders(home: Path) -> str:
    from decimal import Decimal

    from ordergate.core import RealtimeClock
    from ordergate.ledger import Filing, RollingCaps, open_ledger

    url = f"sqlite:///{home / 'ledger.db'}"
    with open_ledger(url, clock=RealtimeClock()) as ledger:
        for index in range(3):
            ledger.file_and_reserve(
                Filing("agent", {"n": index}, account="acct"),
                notional=Decimal(100),
                caps=RollingCaps(Decimal(1000), 100),
            )
    (home / "ledger.db").chmod(0o600)
    return url


@pytest.mark.req("ledger.reservations-and-controls-verified")
def test_serve_refuses_to_start_on_a_zeroed_reservation_naming_it(tmp_path: Path) -> None:
    from sqlalchemy import create_engine, text

    url = _ledger_with_orders(tmp_path)
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.execute(text("UPDATE reservations SET amount_units = 0 WHERE ops = 1"))
    engine.dispose()
    result = invoke("serve", "--sandbox", "--port", "0", env={"ORDERGATE_HOME": str(tmp_path)})
    assert result.exit_code == 2, result.output
    assert result.output.startswith("ledger: the ledger fails verification at reservations 1")


@pytest.mark.req("ledger.reservations-and-controls-verified")
def test_serve_refuses_to_start_on_a_rewritten_applied_policy_naming_it(tmp_path: Path) -> None:
    from sqlalchemy import create_engine, text

    _ledger_with_orders(tmp_path)
    assert invoke("serve", "--help").exit_code == 0
    engine = create_engine(f"sqlite:///{tmp_path / 'ledger.db'}")
    with engine.begin() as connection:
        connection.execute(
            text("INSERT INTO controls VALUES ('applied_policy', :value, :at)"),
            {"value": '{"text":"approval = \\"never\\""}', "at": "2026-12-01T15:00:00.000000Z"},
        )
    engine.dispose()
    result = invoke("serve", "--sandbox", "--port", "0", env={"ORDERGATE_HOME": str(tmp_path)})
    assert result.exit_code == 2, result.output
    assert result.output.startswith("ledger: the ledger fails verification at controls")
    assert "controls.applied_policy" in result.output
