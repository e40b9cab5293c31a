"""Help that reads well at 80 columns.

Typer shows a type placeholder beside every parameter (``<bool>``, ``<str>``, ``<path>``)
and a choice as one long ``<a|b|c>`` that Rich folds mid-word (``st|op_limit``) in a narrow
terminal. :func:`tidy` rewrites a built command tree the way ``gh`` and ``uv`` show theirs:
a flag shows no value; an option or argument shows its name in capitals (or the metavar its
definition gives); a choice's values go into the help sentence, where lines break between
words. A command's one-line summary is its first paragraph on one line.

Typer 0.29 offers no hook for the placeholder, so each parameter is given a subclass that
only changes how its value is displayed (:class:`_Option`, :class:`_Argument`).
"""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperArgument, TyperGroup, TyperOption

__all__ = ["summary_of", "tidy"]


def summary_of(help_text: str | None) -> str:
    """The first paragraph of ``help_text``, on one line."""
    first = (help_text or "").strip().split("\n\n", 1)[0]
    return " ".join(first.split())


def tidy(command: Any) -> Any:
    """``command`` and every sub-command below it, tidied in place; returns ``command``."""
    for param in command.params:
        _tidy_param(param)
    # Built on first use and kept: build it now so that it is tidied too.
    help_option = command.get_help_option(typer.Context(command))
    if help_option is not None:
        _tidy_param(help_option)
    if isinstance(command, TyperGroup):
        for sub in command.commands.values():
            tidy(sub)
            if sub.help and not sub.short_help:
                sub.short_help = summary_of(sub.help)
    return command


def _tidy_param(param: object) -> None:
    if isinstance(param, TyperOption) and not isinstance(param, _Option):
        param.__class__ = _Option
    elif isinstance(param, TyperArgument) and not isinstance(param, _Argument):
        param.__class__ = _Argument
        param.metavar = param.metavar or (param.name or "value").upper()
    else:
        return
    described = param.type_descriptor
    if described.is_choice and param.help is not None:
        choices = [str(choice) for choice in described.choices or ()]
        values = ", ".join(choices)
        if not all(choice in param.help for choice in choices):
            param.help = f"{param.help.rstrip()} One of: {values}."


def _display(param: TyperOption) -> str | None:
    if param.metavar is not None:
        return param.metavar
    if param.is_flag:
        return None
    return (param.name or "value").upper()


class _Option(TyperOption):
    def display_type_rich(self, ctx: Any) -> str | None:
        return _display(self)


class _Argument(TyperArgument):
    def display_type_rich(self, ctx: Any) -> str | None:
        return None  # the name column already shows it
