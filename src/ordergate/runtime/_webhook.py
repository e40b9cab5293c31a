"""``WebhookNotifier``: announce each new pending approval with a POST of JSON.

The body says what waits and until when (ids, symbol, side, size, type, limit, notional,
expiry), and, when a gateway serves the owner's console, ``console_url``: the page of that
approval there (opening it approves nothing: the console asks for the passkey or the code).
The link is also logged, webhook or none. Never a token or an account number. A webhook that
fails or is slow (5 s) is logged and skipped: the approval is on the ledger either way and
``ordergate approvals`` lists it. It is the owner's channel: on a hosted rail a person's held
order is that person's alone (their push, their console), and the rail's guards get none.

``announce`` posts any other owner alert the same way (``owner_locked``: owner acts locked
after wrong codes, from one source or from all; ``owner_act_…``: an owner act that loosens
waiting for the owner's delay, taking effect, cancelled or failed; ``late_order_adopted``: an
order declared not placed reached the broker after all).
"""

from __future__ import annotations

import logging
from typing import Any

import httpx2

from ordergate.core import to_wire
from ordergate.ledger import Approval, FilingRecord

__all__ = ["WebhookNotifier", "approval_announcement"]

logger = logging.getLogger(__name__)
TIMEOUT_S = 5.0


def approval_announcement(approval: Approval, record: FilingRecord) -> dict[str, Any]:
    terms = record.terms
    return {
        "event": "approval_pending",
        "approval_id": str(approval.id),
        "filing_id": str(record.id),
        "identity": record.identity,
        "kind": record.kind,
        "symbol": terms.get("symbol"),
        "side": terms.get("side"),
        "type": terms.get("type"),
        "quantity": terms.get("quantity"),
        "dollar_amount": terms.get("dollar_amount"),
        "limit_price": terms.get("limit_price"),
        "stop_price": terms.get("stop_price"),
        # A crypto order's own names (``None`` for an equity order's).
        "pair": terms.get("pair"),
        "asset_quantity": terms.get("asset_quantity"),
        "quote_amount": terms.get("quote_amount"),
        "lane": terms.get("lane"),
        # The estimate this approval asks for: the filing's, or the reviewed notional of an
        # order held again because it moved past what the owner approved.
        "notional": to_wire(
            approval.notional if approval.notional is not None else record.notional
        ),
        "expires_at": approval.expires_at.isoformat(),
    }


class WebhookNotifier:
    def __init__(
        self, url: str | None, *, console_url: str | None = None, timeout_s: float = TIMEOUT_S
    ) -> None:
        self._url = url
        self._console_url = console_url.rstrip("/") if console_url else None
        self._timeout_s = timeout_s

    def __repr__(self) -> str:
        # The URL may carry a secret path or query; never show it.
        return "WebhookNotifier(url=<configured>)"

    async def __call__(self, approval: Approval, record: FilingRecord) -> None:
        body = approval_announcement(approval, record)
        if self._console_url is not None:
            body["console_url"] = f"{self._console_url}/approvals/{approval.id}"
            # Warning, not info: the owner must act, and serve shows warnings (Python's default).
            logger.warning("an order waits for the owner's approval: %s", body["console_url"])
        await self.announce(body)

    async def announce(self, body: dict[str, Any]) -> None:
        """POST ``body`` to the webhook (nothing without one); a failure is logged."""
        if self._url is None:
            return
        try:
            async with httpx2.AsyncClient(timeout=self._timeout_s) as http:
                response = await http.post(self._url, json=body)
            if response.status_code >= 300:
                logger.warning("owner webhook answered HTTP %s", response.status_code)
        except httpx2.HTTPError as error:
            logger.warning("owner webhook failed: %s", type(error).__name__)
