"""What a prepared act's answer keeps on the ledger, and how a retry is given it again.

An act runs once; asked again with the same code it answers as it did the first time. What is
kept for that is the whole answer but its secrets (a minted caller token), so an answer that
held one is not given again: the retry is refused and the owner does the act again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ordergate.gateway.desk._errors import DeskError

__all__ = ["kept", "replayed"]

_WITHHELD = ("token",)
"""Parts of an answer never kept on the ledger (a minted caller token: a secret)."""


def kept(outcome: Mapping[str, Any]) -> dict[str, Any]:
    """What is kept of an act's answer for a retry: all of it but its secrets."""
    withheld = [key for key in _WITHHELD if key in outcome]
    kept = {key: value for key, value in outcome.items() if key not in withheld}
    return {**kept, "withheld": withheld} if withheld else kept


def replayed(outcome: Mapping[str, Any]) -> dict[str, Any]:
    """A finished act's first answer, given again (a refusal raised again); an answer that
    held a secret is not kept, so its retry is refused."""
    error = outcome.get("error")
    if isinstance(error, dict):
        raise DeskError(int(outcome.get("status", 409)), str(error["code"]), str(error["message"]))
    if outcome.get("withheld"):
        raise DeskError(
            409, "prepared_act_used", "That act was done and its answer held a secret: do it again."
        )
    return dict(outcome)
