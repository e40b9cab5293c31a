"""The one stored time format: ``parse_iso`` takes exactly what ``iso`` writes (the instant
the format's ``strptime`` reads from it), and nothing else."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ordergate.store import iso, parse_iso

_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def _strict(text: str) -> datetime | None:
    try:
        return datetime.strptime(text, _FORMAT).replace(tzinfo=UTC)
    except ValueError:
        return None


def _ours(text: str) -> datetime | None:
    try:
        return parse_iso(text)
    except ValueError:
        return None


@given(
    st.datetimes(min_value=datetime(1000, 1, 2), max_value=datetime(9999, 12, 30)),
    st.integers(min_value=-14 * 60, max_value=14 * 60),
)
def test_a_written_time_reads_back_as_the_same_instant(naive: datetime, offset: int) -> None:
    instant = naive.replace(tzinfo=timezone(timedelta(minutes=offset)))
    back = parse_iso(iso(instant))
    assert back == instant and back.tzinfo is UTC


_VALID = "2026-12-01T15:00:00.123456Z"


@given(
    st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=len(_VALID)),
            st.sampled_from(["", "0", "9", "Z", "T", " ", ".", ",", ":", "-", "+", "a", "٣"]),
            st.booleans(),
        ),
        max_size=3,
    )
)
def test_any_text_is_taken_exactly_when_it_is_what_iso_writes(
    edits: list[tuple[int, str, bool]],
) -> None:
    text = _VALID
    for at, char, replace in edits:
        at = min(at, len(text))
        text = text[:at] + char + text[at + 1 if replace else at :]
    strict = _strict(text)
    written = strict is not None and iso(strict) == text  # the fixed width iso writes
    assert _ours(text) == (strict if written else None)


def test_a_naive_time_is_refused_rather_than_guessed() -> None:
    with pytest.raises(ValueError, match="naive"):
        iso(datetime(2026, 12, 1, 15, 0))
