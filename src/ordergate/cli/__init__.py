"""The ``ordergate`` command line."""

from ordergate.cli._app import app, main

__all__ = ["app", "main"]
