"""The console shows an instant as a person reads it, in UTC to the minute."""

from __future__ import annotations

from ordergate.gateway.console._web import when


def test_an_instant_reads_in_utc_to_the_minute_and_anything_else_as_it_is() -> None:
    assert when("2026-12-01T15:15:04.270744+00:00") == "2026-12-01 15:15 UTC"
    assert when("2026-12-01T10:15:04-05:00") == "2026-12-01 15:15 UTC"
    assert when("2026-12-01T15:00:02.518537Z") == "2026-12-01 15:00 UTC"
    assert when("2026-12-01T15:15:04") == "2026-12-01 15:15"
    assert when(None) == "—" and when("") == "—"
    assert when("soon") == "soon"
