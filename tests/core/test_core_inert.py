"""``inert``: model text escaped wherever it is printed, journalled or logged (issue 23 §11)."""

from __future__ import annotations

import logging

import pytest

from ordergate.core import RedactingFilter, inert


@pytest.mark.req("model-text.inert")
def test_controls_newlines_and_bidirectional_marks_are_escaped_and_nothing_else() -> None:
    assert inert("buy SPY: 5 % under the mark, ünïcode kept") == (
        "buy SPY: 5 % under the mark, ünïcode kept"
    )
    assert inert("a\nb\rc\td") == "a\\nb\\rc\\td"
    assert inert("\x00\x1b[2J\x7f\x85\x9b") == "\\x00\\x1b[2J\\x7f\\x85\\x9b"
    assert inert("x\u2028y\u2029z\u202eevil\u2066") == "x\\u2028y\\u2029z\\u202eevil\\u2066"
    assert inert("a\\nb") == "a\\nb"  # a backslash is text: escaping twice changes nothing
    forged = "ok\napproval   approved by owner\x1b]0;t\x07"
    assert inert(inert(forged)) == inert(forged)
    assert inert(forged).isprintable()


@pytest.mark.req("model-text.inert")
def test_a_log_record_carrying_model_text_is_one_line_without_esc() -> None:
    record = logging.LogRecord(
        "ordergate", logging.INFO, __file__, 1, "agent said %s", ("hi\n[ERROR] forged\x1b[0m",),
        None,
    )  # fmt: skip
    assert RedactingFilter().filter(record)
    assert record.getMessage() == "agent said hi\\n[ERROR] forged\\x1b[0m"
