"""``ordergate call``: a script's one tool call through the gateway with a caller token."""

from __future__ import annotations

import json

from callers_kit import BUY, Host
from typer.testing import CliRunner, Result

from ordergate.cli import app


def call(host: Host, token: str | None, *args: str) -> Result:
    env = {"ORDERGATE_GATEWAY_URL": host.url, "ORDERGATE_CALLER_TOKEN": token or ""}
    return CliRunner().invoke(app, ["call", *args], env=env)


def test_call_prints_the_tools_answer_and_exits_0(host: Host) -> None:
    result = call(
        host, host.token("script", "monitor"), "get_equity_quotes", "--args", '{"symbols": ["SPY"]}'
    )
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["data"]["results"][0]["quote"]["symbol"] == "SPY"


def test_a_refused_call_prints_why_and_exits_3(host: Host) -> None:
    result = call(
        host, host.token("script", "monitor"), "place_equity_order", "--args", json.dumps(BUY)
    )
    assert result.exit_code == 3, result.output
    assert json.loads(result.stdout)["error"]["code"] == "PROFILE_REFUSED"


def test_a_refused_token_exits_1_without_showing_it(host: Host) -> None:
    token = host.token("script", "monitor") + "x"
    result = call(host, token, "get_equity_quotes")
    assert result.exit_code == 1
    assert "refused the caller token" in result.output
    assert token not in result.output


def test_call_without_a_token_says_which_variable_to_set(host: Host) -> None:
    result = call(host, None, "get_equity_quotes")
    assert result.exit_code == 2
    assert "ORDERGATE_CALLER_TOKEN" in result.output


def test_call_refuses_arguments_that_are_not_a_json_object(host: Host) -> None:
    result = call(host, host.token(), "get_equity_quotes", "--args", "[1, 2]")
    assert result.exit_code == 2
    assert "--args" in result.output
