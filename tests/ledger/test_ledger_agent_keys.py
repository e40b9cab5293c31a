"""An agent's key for an order is filed once per identity: the ledger's primary key on
(identity, agent_key) refuses a second filing under it, from any thread or process, and
nothing of the refused filing is written."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from uuid import uuid4

import pytest

from ordergate.ledger import AgentKeyUsedError, Filing, Ledger, RollingCaps

CAPS = RollingCaps(max_daily_usd=Decimal(1000), max_orders_per_day=50)
TERMS = {"symbol": "SPY", "side": "buy", "quantity": Decimal(1)}

pytestmark = pytest.mark.req("wall.agent-key.once")


def _file(ledger: Ledger, identity: str, key: object, account: str = "a") -> Filing:
    filing = Filing(identity, TERMS, account=account, agent_key=key)  # type: ignore[arg-type]
    ledger.file_and_reserve(filing, notional=Decimal(10), caps=CAPS)
    return filing


def test_a_filing_is_found_by_its_identity_and_agent_key(ledger: Ledger) -> None:
    key = uuid4()
    filing = _file(ledger, "agent", key)
    found = ledger.keyed_filing("agent", key)
    assert found is not None and found.id == filing.id and found.terms == {
        "symbol": "SPY", "side": "buy", "quantity": "1"
    }  # fmt: skip
    assert ledger.keyed_filing("other", key) is None
    assert ledger.keyed_filing("agent", uuid4()) is None


def test_a_second_filing_under_a_used_key_is_refused_and_nothing_of_it_is_written(
    ledger: Ledger,
) -> None:
    key = uuid4()
    first = _file(ledger, "agent", key)
    spent = ledger.rolling_spend("a")
    with pytest.raises(AgentKeyUsedError) as refused:
        _file(ledger, "agent", key)
    assert refused.value.code == "agent_key_used" and refused.value.agent_key == str(key)
    assert [record.id for record in ledger.filings_of("agent", limit=10)] == [first.id]
    assert ledger.rolling_spend("a") == spent
    assert ledger.verify().ok
    # Another identity's key is its own; the identity's other keys file as usual.
    _file(ledger, "other", key)
    _file(ledger, "agent", uuid4())
    assert len(ledger.filings_of("agent", limit=10)) == 2


def test_ten_threads_filing_under_one_key_file_once(ledger: Ledger) -> None:
    key = uuid4()

    def attempt(account: str) -> bool:
        try:
            _file(ledger, "agent", key, account=account)
        except AgentKeyUsedError:
            return False
        return True

    # Two accounts: on Postgres they take different locks, so only the key stops the second.
    with ThreadPoolExecutor(max_workers=10) as pool:
        filed = list(pool.map(attempt, ["a", "b"] * 5))
    assert filed.count(True) == 1
    assert len(ledger.filings_of("agent", limit=20)) == 1
