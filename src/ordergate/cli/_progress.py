"""Long work shows that it is working: a spinner on stderr while it runs, when stderr is a
terminal. Nothing otherwise, so pipes, logs and scripts see only the command's output."""

from __future__ import annotations

import sys
from contextlib import AbstractContextManager, nullcontext

__all__ = ["working"]


def working(message: str) -> AbstractContextManager[object]:
    """``with working("draining tools/list…"):`` — a spinner saying ``message`` on a TTY."""
    if not sys.stderr.isatty():
        return nullcontext()
    from rich.console import Console

    return Console(stderr=True).status(message)
