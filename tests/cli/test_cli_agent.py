"""``ordergate agent run`` on the embedded sandbox, in a fresh ``ORDERGATE_HOME``."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from ordergate.cli import app

# Tuesday 2026-12-01, 10:00 in New York: the regular session is open.
OPEN = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
# Saturday 2026-12-05, noon in New York: closed.
WEEKEND = datetime(2026, 12, 5, 17, 0, tzinfo=UTC)

CONFIG = """\
identity = "cli-rebalancer"
[rebalance]
band_pct = "5"
min_trade_usd = "5"
[rebalance.targets]
SPY = "50"
"""


def _run(home: Path, at: datetime, *args: str, **extra: str) -> Result:
    env = {
        "ORDERGATE_HOME": str(home),
        "ORDERGATE_DB_URL": "",
        "ORDERGATE_UPSTREAM_URL": "",
        "ORDERGATE_APPROVAL_WEBHOOK": "",
        "ORDERGATE_SANDBOX_START": at.isoformat(),
        "ORDERGATE_GATEWAY_URL": "http://127.0.0.1:9",
        "ORDERGATE_SANDBOX_SPEED": "",
        **extra,
    }
    return CliRunner().invoke(app, ["agent", "run", *args], env=env)


def test_one_tick_on_the_default_policy_files_the_buy_and_holds_it_for_approval(
    tmp_path: Path,
) -> None:
    config = tmp_path / "agent.toml"
    config.write_text(CONFIG, encoding="utf-8")
    result = _run(tmp_path / "home", OPEN, "--config", str(config), "--once", "--sandbox", "--json")
    assert result.exit_code == 0, result.output
    assert "agent cli-rebalancer: rebalance in paper mode" in result.stderr
    (line,) = result.stdout.strip().splitlines()
    tick = json.loads(line)
    assert tick["session"] == "regular" and tick["state"] == "running"
    (order,) = tick["orders"]
    assert order["side"] == "buy" and order["symbol"] == "SPY"
    assert order["status"] == "pending_approval"
    why = CliRunner().invoke(
        app, ["why", order["filing_id"], "--db", f"sqlite:///{tmp_path / 'home' / 'ledger.db'}"]
    )
    assert why.exit_code == 0, why.output
    assert "approval   pending by -" in why.stdout and "placement  none" in why.stdout
    assert "grade      not queued yet" in why.stdout
    status = CliRunner().invoke(
        app,
        ["status", "--sandbox"],
        env={
            "ORDERGATE_HOME": str(tmp_path / "home"),
            "ORDERGATE_DB_URL": "",
            "ORDERGATE_UPSTREAM_URL": "",
            "ORDERGATE_SANDBOX_START": OPEN.isoformat(),
        },
    )
    assert status.exit_code == 0, status.output
    assert "agent           cli-rebalancer: running at " in status.stdout


def test_outside_the_session_it_holds_and_says_when_the_market_opens(tmp_path: Path) -> None:
    result = _run(tmp_path / "home", WEEKEND, "--once", "--sandbox")
    assert result.exit_code == 0, result.output
    assert "closed" in result.stdout and "hold:" in result.stdout
    assert "next regular open 2026-12-07 14:30:00+00:00" in result.stdout


def test_a_bad_config_names_the_field_and_exits_2(tmp_path: Path) -> None:
    config = tmp_path / "agent.toml"
    config.write_text('[rebalance]\nband_pct = 5.0\n[rebalance.targets]\nSPY = "50"\n')
    result = _run(tmp_path / "home", OPEN, "--config", str(config), "--once", "--sandbox")
    assert result.exit_code == 2
    assert "rebalance.band_pct" in result.stderr and "floats" in result.stderr


def test_an_unknown_strategy_is_refused_before_anything_starts(tmp_path: Path) -> None:
    result = _run(tmp_path / "home", OPEN, "--strategy", "momentum", "--once", "--sandbox")
    assert result.exit_code == 2 and "--strategy" in result.output


def _readme_agent_config() -> str:
    """The README's example agent configuration, as written."""
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    start = readme.index('```toml\nidentity = "rebalancer"')
    return readme[start + len("```toml\n") : readme.index("```", start + 7)]


@pytest.mark.req("agent.llm.first-run")
def test_the_readme_llm_config_without_its_sdk_is_one_line_naming_the_uv_command_and_exit_2(
    tmp_path: Path,
) -> None:
    config = tmp_path / "agent.toml"
    config.write_text(_readme_agent_config(), encoding="utf-8")
    assert 'provider = "anthropic"' in config.read_text(encoding="utf-8")
    result = _run(
        tmp_path / "home", OPEN, "--strategy", "llm", "--config", str(config), "--once",
        "--sandbox",
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    (line,) = result.output.strip().splitlines()
    assert "`scripts/uv sync --extra anthropic`" in line
    assert "Traceback" not in result.output


@pytest.mark.req("agent.llm.first-run")
def test_the_readme_scripted_replies_example_runs_as_written(tmp_path: Path) -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    start = readme.index('```toml\n[llm]\nprovider = "scripted"')
    scripted = readme[start + len("```toml\n") : readme.index("```", start + 7)]
    config = tmp_path / "agent.toml"
    config.write_text('identity = "scripted"\n' + scripted, encoding="utf-8")
    result = _run(
        tmp_path / "home", OPEN, "--strategy", "llm", "--config", str(config), "--once",
        "--sandbox", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    (line,) = result.stdout.strip().splitlines()
    (order,) = json.loads(line)["orders"]
    assert (order["side"], order["symbol"]) == ("buy", "SPY")


@pytest.mark.req("agent.llm.first-run")
def test_each_thing_the_model_proposed_and_was_dropped_is_shown_with_its_reason(
    tmp_path: Path,
) -> None:
    replies = [
        '[{"action": "buy", "symbol": "TSLA", "size_usd": "25", "rationale": "off the list"},'
        ' {"action": "buy", "symbol": "SPY", "size_usd": 25.5, "rationale": "a float"}]',
    ]
    config = tmp_path / "agent.toml"
    config.write_text(
        'identity = "dropper"\n[llm]\nprovider = "scripted"\nsymbols = ["SPY"]\n'
        f"replies = {json.dumps(replies)}\n",
        encoding="utf-8",
    )
    result = _run(
        tmp_path / "home", OPEN, "--strategy", "llm", "--config", str(config), "--once",
        "--sandbox",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "the model proposed no order" not in result.stdout
    dropped = [line for line in result.stdout.splitlines() if "dropped:" in line]
    assert len(dropped) == 2, result.stdout
    assert any("TSLA" in line and "not in the universe" in line for line in dropped)
    assert any("size_usd" in line for line in dropped)
    garbage = tmp_path / "garbage.toml"
    garbage.write_text(
        'identity = "garbled"\n[llm]\nprovider = "scripted"\nsymbols = ["SPY"]\n'
        'replies = ["I think you should buy \\u001b[31mSPY"]\n',
        encoding="utf-8",
    )
    unreadable = _run(
        tmp_path / "home", OPEN, "--strategy", "llm", "--config", str(garbage), "--once",
        "--sandbox", "--json",
    )  # fmt: skip
    assert unreadable.exit_code == 0, unreadable.output
    (tick,) = [json.loads(line) for line in unreadable.stdout.strip().splitlines()]
    (reason,) = tick["dropped"]
    assert reason.startswith("model output is not JSON")


@pytest.mark.req("agent.llm.first-run")
def test_between_ticks_the_runner_waits_market_time_fewer_wall_seconds_when_accelerated() -> None:
    from datetime import timedelta
    from decimal import Decimal

    from ordergate.cli._agent import wall_wait
    from ordergate.core import AcceleratedClock, RealtimeClock

    five_minutes = timedelta(minutes=5)
    assert wall_wait(AcceleratedClock(start=OPEN, speed=Decimal(60)), five_minutes) == 5.0
    assert wall_wait(RealtimeClock(), five_minutes) == 300.0


@pytest.mark.req("agent.llm.first-run")
def test_without_once_an_accelerated_embedded_sandbox_brings_ticks_fast_in_wall_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ordergate.cli import _agent

    waited: list[float] = []

    async def record(seconds: float) -> None:
        waited.append(seconds)

    monkeypatch.setattr(_agent, "_sleep", record)
    config = tmp_path / "agent.toml"
    config.write_text("tick_seconds = 300\nmax_ticks = 3\n" + CONFIG, encoding="utf-8")
    env = {"ORDERGATE_SANDBOX_SPEED": "60"}
    result = _run(tmp_path / "home", OPEN, "--config", str(config), "--sandbox", "--json", **env)
    assert result.exit_code == 0, result.output
    ticks = [json.loads(line) for line in result.stdout.strip().splitlines()]
    assert len(ticks) == 3
    # Five market minutes between ticks are five wall seconds at sixty times wall speed.
    assert waited == [5.0, 5.0]
