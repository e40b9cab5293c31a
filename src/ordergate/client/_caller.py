"""What every typed subclient needs: something that calls a tool and returns its ``data``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

__all__ = ["Caller"]


class Caller(Protocol):
    async def call(self, name: str, arguments: Mapping[str, Any]) -> Any:
        """Call tool ``name``; return the ``data`` of its ``{data, guide}`` result.

        Raises a ``ToolError`` subclass for every failure, business failures included.
        """
        ...
