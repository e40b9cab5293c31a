"""The README's quickstart names the gateway as its main command (issue 6 §1), and every
command it names exists."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from typer.testing import CliRunner

from ordergate.cli import app

README = Path(__file__).resolve().parents[2] / "README.md"
PYPROJECT = README.parent / "pyproject.toml"


def _name(spec: str) -> str:
    return re.split(r"[\[<>=!~; ]", spec, maxsplit=1)[0].lower()


def _quickstart_commands() -> list[str]:
    text = README.read_text(encoding="utf-8")
    section = text.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None
    return [line.split("#", 1)[0].strip() for line in block.group(1).splitlines() if line.strip()]


def test_the_quickstarts_main_command_is_the_gateway() -> None:
    assert _quickstart_commands()[0] == "scripts/uv run --no-dev ordergate serve"


def test_the_quickstarts_gateway_installs_no_development_tool() -> None:
    # `uv run --no-dev` leaves out the `dev` dependency group: every tool only the tests and
    # gates use is there, none among the project's own dependencies.
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
    dev = {_name(spec) for spec in project["dependency-groups"]["dev"]}
    runtime = {_name(spec) for spec in project["project"]["dependencies"]}
    tools = {
        *("pytest", "pytest-cov", "pytest-xdist", "hypothesis"),
        *("ruff", "mypy", "import-linter", "playwright"),
    }
    assert tools <= dev
    assert not tools & runtime
    assert "--no-dev" in _quickstart_commands()[0].split()


def test_every_ordergate_command_in_the_quickstart_has_help() -> None:
    for command in _quickstart_commands():
        words = command.split()
        if "ordergate" not in words:
            assert (README.parent / words[0]).exists(), command
            continue
        args = words[words.index("ordergate") + 1 :]
        result = CliRunner().invoke(app, [*args, "--help"])
        assert result.exit_code == 0, (command, result.output)
