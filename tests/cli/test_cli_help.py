"""Every command's ``--help`` reads well at 80 columns; the root starts without the heavy
modules; ``--version`` answers."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from importlib.metadata import version

import pytest
import typer
from typer.testing import CliRunner

from ordergate.cli import app
from ordergate.cli._help import summary_of
from ordergate.cli._lazy import _REGISTRY

_BOX = str.maketrans(dict.fromkeys("│╭╮╰╯─┃━", " "))
# A type placeholder such as <bool>, <str>, <path> or <a|b|c>.
_PLACEHOLDER = re.compile(r"<[a-z_][a-z0-9_|,\[\] ]*>")


def _paths() -> Iterator[list[str]]:
    root = typer.main.get_group(app)

    def walk(command: object, path: list[str]) -> Iterator[list[str]]:
        yield path
        if isinstance(command, typer.core.TyperGroup):
            ctx = typer.Context(command)
            for name in command.list_commands(ctx):
                yield from walk(command.get_command(ctx, name), [*path, name])

    yield from walk(root, [])


PATHS = list(_paths())


def _help(path: list[str], columns: int) -> str:
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    return result.output


def _words(text: str) -> set[str]:
    return set(text.translate(_BOX).split())


def test_the_walk_reaches_every_command_and_subcommand() -> None:
    names = {" ".join(path) for path in PATHS}
    assert {"", "status", "bench", "serve", "tools list", "sandbox serve", "audit verify"} <= names
    assert len(PATHS) > 30


@pytest.mark.req("cli.help.80-columns")
@pytest.mark.parametrize("path", PATHS, ids=lambda path: " ".join(path) or "ordergate")
def test_help_at_80_columns_has_no_placeholder_no_cut_word_and_no_long_line(
    path: list[str],
) -> None:
    narrow = _help(path, 80)
    wide_words = _words(_help(path, 400))
    assert not _PLACEHOLDER.findall(narrow)
    assert "…" not in narrow
    assert [line for line in narrow.splitlines() if len(line) > 80] == []
    # A word cut by a line break shows as pieces that the wide rendering never has.
    assert sorted(_words(narrow) - wide_words) == []


def test_the_root_help_lists_each_commands_own_summary() -> None:
    root = typer.main.get_group(app)
    ctx = typer.Context(root)
    for name, entry in _REGISTRY.items():
        command = root.get_command(ctx, name)
        assert command is not None, name
        assert entry.summary == summary_of(command.help), name


def test_a_choice_shows_its_values_in_the_help_sentence() -> None:
    narrow = " ".join(_help(["order"], 80).translate(_BOX).split())
    assert "One of: market, limit, stop_market, stop_limit." in narrow
    assert "--type ORDER_TYPE" in narrow


def test_version_prints_the_installed_version() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output == f"ordergate {version('ordergate')}\n"


@pytest.mark.req("cli.fast-start")
def test_the_root_help_imports_no_command_module() -> None:
    probe = (
        "import sys\n"
        "from ordergate.cli import app\n"
        "try:\n"
        "    app(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = ('ordergate.execution', 'ordergate.ledger', 'ordergate.runtime', "
        "'ordergate.sandbox', 'ordergate.client', 'sqlalchemy', 'mcp', 'pydantic', 'anyio')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy "
        "or m.startswith(heavy)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_an_unknown_command_is_a_usage_error_naming_it() -> None:
    result = CliRunner().invoke(app, ["no-such-command"], env={"COLUMNS": "80"})
    assert result.exit_code == 2
    assert "no-such-command" in result.output


@pytest.mark.req("cli.help.grouped")
def test_the_root_help_groups_commands_under_four_headings_in_a_persons_order() -> None:
    text = _help([], 100)
    headings = ["Serve and connect", "The owner's acts", "The wall", "Tools and bench"]
    at = [text.index(heading) for heading in headings]
    assert at == sorted(at)
    expected = {
        "serve": 0, "login": 0, "connections": 0, "approve": 1, "deny": 1, "pause": 1,
        "policy": 1, "owner": 1, "order": 2, "status": 2, "why": 2, "audit": 2, "tools": 3,
        "bench": 3,
    }  # fmt: skip
    for name, panel in expected.items():
        where = re.search(rf"│ {re.escape(name)}\s", text)
        assert where is not None, name
        before = [i for i, start in enumerate(at) if start < where.start()]
        assert before[-1] == panel, name
    # Every command has a heading.
    assert all(entry.panel for entry in _REGISTRY.values())
