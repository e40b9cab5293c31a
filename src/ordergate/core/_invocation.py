"""How the person runs ``ordergate``, so a hint names the command they actually type.

The quickstart runs every command as ``scripts/uv run ordergate …`` (``uv run`` sets
``UV_RUN_RECURSION_DEPTH`` in the environment of what it runs); an installed ``ordergate``
is typed as it is. A hint that names another command is built with ``command_hint``.
"""

from __future__ import annotations

import os

__all__ = ["command_hint"]

UV_RUN = "UV_RUN_RECURSION_DEPTH"


def command_hint(arguments: str) -> str:
    """``ordergate ARGUMENTS`` as the person types it: ``scripts/uv run ordergate …`` when this
    process was started by ``uv run``, else ``ordergate …``."""
    prefix = "scripts/uv run ordergate" if os.environ.get(UV_RUN) else "ordergate"
    return f"{prefix} {arguments}".rstrip()
