"""The root command group: each sub-command's module is imported only when it is used.

Importing every command module up front costs seconds (the ledger, the MCP client, the
sandbox venue): ``ordergate --help`` and ``ordergate --version`` need none of it. A
:class:`Lazy` entry names a command's module, the attribute that holds it (a function or a
``typer.Typer``) and its one-line summary, which the root ``--help`` lists without importing
the module (a test checks each summary against the command's own help). A command is built
once, when first asked for, and its help is tidied for narrow terminals
(:func:`ordergate.cli._help.tidy`).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

from ordergate.cli._help import tidy

__all__ = ["Lazy", "LazyGroup", "lazy_commands"]


@dataclass(frozen=True, slots=True)
class Lazy:
    """Command ``name`` is ``module.attribute``; ``summary`` is what the root help lists,
    under the heading ``panel``."""

    name: str
    module: str
    attribute: str
    summary: str
    panel: str | None = None

    def build(self) -> Any:
        target: Any = getattr(importlib.import_module(self.module), self.attribute)
        # Mounted on a bare root exactly as ``add_typer``/``command`` would mount it on ours.
        root = typer.Typer(add_completion=False)
        if isinstance(target, typer.Typer):
            root.add_typer(target, name=self.name, rich_help_panel=self.panel)
            group = typer.main.get_command(root)
            assert isinstance(group, TyperGroup)
            command = group.commands[self.name]
        else:
            root.command(self.name, rich_help_panel=self.panel)(target)
            command = typer.main.get_command(root)
        command.name = self.name
        return tidy(command)


_REGISTRY: dict[str, Lazy] = {}


def lazy_commands(*entries: Lazy) -> None:
    """Make ``entries`` the root's lazily-built commands (in the order the help lists them)."""
    _REGISTRY.clear()
    _REGISTRY.update({entry.name: entry for entry in entries})


class LazyGroup(TyperGroup):
    """A ``TyperGroup`` whose lazily registered commands are built on first use."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self._built: dict[str, Any] = {}
        self._listing = False
        tidy(self)

    def list_commands(self, ctx: Any) -> list[str]:
        eager = [name for name in self.commands if name not in _REGISTRY]
        return [*_REGISTRY, *eager]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        entry = _REGISTRY.get(cmd_name)
        if entry is None:
            return super().get_command(ctx, cmd_name)
        if self._listing and cmd_name not in self._built:
            # Listed in the root help: its summary is enough; nothing is imported.
            return TyperCommand(
                cmd_name,
                short_help=entry.summary,
                help=entry.summary,
                rich_help_panel=entry.panel,
            )
        if cmd_name not in self._built:
            self._built[cmd_name] = entry.build()
        return self._built[cmd_name]

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False
