"""``verify_at_start``: a run starts only on a ledger that verifies since its last start.

Whoever can edit the ledger's database can zero a reservation (freeing the daily cap), or
rewrite the controls (the applied policy, the pause, the breakers' marks). The chains show
it (``Ledger.verify``: the reservations are replayed from them, the controls are a chain of
their own), so ``ordergate serve`` verifies before it opens the guard, and refuses to start
on a ledger that fails, naming what failed (``LedgerTamperedError``).

So that a start costs what was recorded since the last one, not the whole history, each
successful start keeps the checkpoints it verified up to in the home
(``ledger-checkpoint.json``, 0600; the filings', the events' and the controls' heads): the
next start walks only what follows them (the rolling window's reservations and the current
controls are always checked). No file (a first start, or
a new home) walks everything once.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from ordergate.core import write_private
from ordergate.ledger import ChainHead, CheckpointError, Ledger, LedgerTamperedError

__all__ = ["CHECKPOINT_FILE", "verify_at_start"]

CHECKPOINT_FILE = "ledger-checkpoint.json"

logger = logging.getLogger(__name__)


def verify_at_start(ledger: Ledger, home: Path) -> None:
    """Verify ``ledger`` since the checkpoints kept in ``home`` (all of it without them),
    then keep the ledger's heads as the next start's checkpoints. Raises
    ``LedgerTamperedError`` naming the first thing that failed."""
    path = home / CHECKPOINT_FILE
    since, events_since, controls_since = _read(path)
    try:
        result = ledger.verify(
            since=since, events_since=events_since, controls_since=controls_since
        )
    except CheckpointError:
        result = ledger.verify()  # a checkpoint that cannot start a walk: walk it all
    if not result.ok:
        raise LedgerTamperedError(
            result.chain or "ledger", result.first_bad_seq, result.reason or "does not verify"
        )
    heads = {
        "filings": str(ledger.head()),
        "events": str(ledger.event_head()),
        "controls": str(ledger.controls_head()),
    }
    try:
        write_private(path, json.dumps(heads).encode())
    except OSError as error:  # the next start walks further back: slower, never weaker
        logger.warning("could not keep the ledger checkpoint: %s", type(error).__name__)


def _read(path: Path) -> tuple[ChainHead | None, ChainHead | None, ChainHead | None]:
    try:
        heads = json.loads(path.read_text(encoding="utf-8"))
        return (
            ChainHead.parse(heads["filings"]),
            ChainHead.parse(heads["events"]),
            ChainHead.parse(heads["controls"]),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None, None, None  # none kept (or unreadable): the whole ledger is walked
