"""``both``: two awaits at once, results in order, a failure raised as it was raised."""

from __future__ import annotations

import anyio
import anyio.lowlevel
import pytest

from ordergate.venues.paper._together import both

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_both_run_at_once_and_give_their_results_in_order() -> None:
    first_started, second_started = anyio.Event(), anyio.Event()

    async def first() -> str:
        first_started.set()
        await second_started.wait()  # only returns if the second runs meanwhile
        return "first"

    async def second() -> int:
        second_started.set()
        await first_started.wait()
        return 2

    with anyio.fail_after(5):
        assert await both(first(), second()) == ("first", 2)


@pytest.mark.parametrize("failing", [0, 1])
async def test_a_failure_is_raised_unwrapped_and_the_other_await_is_cancelled(
    failing: int,
) -> None:
    cancelled = anyio.Event()

    async def fails() -> None:
        await anyio.lowlevel.checkpoint()  # let the other await start first
        raise LookupError("no such order")

    async def waits_forever() -> None:
        try:
            await anyio.Event().wait()
        finally:
            cancelled.set()

    pair = (fails(), waits_forever()) if failing == 0 else (waits_forever(), fails())
    with anyio.fail_after(5), pytest.raises(LookupError, match="no such order"):
        await both(*pair)
    assert cancelled.is_set()
