"""The owner's commands as the owner types them against a running gateway: over its owner
channel (the Unix socket in its home), from a home of the command's own that holds no ledger,
key or master secret, so whatever the command does, the gateway did."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner, Result

from ordergate.cli import app


def owner_command(home: Path, *args: str, code: str | None = None) -> Result:
    """``ordergate ARGS --owner-socket PATH`` against the gateway whose home is ``home``;
    ``code``, when given, on standard input (``--code-stdin``)."""
    env = {
        "ORDERGATE_HOME": str(home.parent / "owner-elsewhere"),
        "ORDERGATE_DB_URL": "",
        "ORDERGATE_MASTER_SECRET": "",
        "ORDERGATE_CALLER_TOKEN_KEY": "",
    }
    stdin = ["--code-stdin"] if code is not None else []
    return CliRunner().invoke(
        app,
        [*args, *stdin, "--owner-socket", str(home / "run" / "owner.sock")],
        env=env,
        input=f"{code}\n" if code is not None else None,
    )
