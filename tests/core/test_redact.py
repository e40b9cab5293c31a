"""Registered secrets are masked in every part of a log record."""

from __future__ import annotations

import gc
import io
import logging
import secrets
import sys
import threading
import time
import uuid
from collections.abc import Iterator

import pytest

from ordergate.core import (
    RedactingFilter,
    Secret,
    _redact,
    install_redaction,
    redact,
    register_secret,
)

MASK = "**********"


@pytest.fixture
def captured() -> Iterator[tuple[logging.Logger, io.StringIO]]:
    """A private logger whose only handler writes through a redacting filter into a buffer."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactingFilter())
    logger = logging.getLogger(f"ordergate.test.redact.{uuid.uuid4().hex}")
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    logger.addHandler(handler)
    yield logger, stream
    logger.removeHandler(handler)


def _token() -> str:
    return secrets.token_urlsafe(32)


@pytest.mark.req("redaction.opaque-token-masked")
def test_an_opaque_token_wrapped_in_secret_never_reaches_a_log_line(
    captured: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, stream = captured
    token = _token()
    Secret(token)

    message = f"bearer {token} in the message"
    logger.info(message)
    logger.info("bearer %s in the args", token)
    logger.info("bearer %(token)s in mapping args", {"token": token})
    try:
        raise RuntimeError(f"refused token {token}")
    except RuntimeError:
        logger.exception("call failed")
    logger.info("with a stack", stack_info=True, extra={"detail": token})
    logger.info("call %s %s", "malformed")  # wrong arg count: still logged, still masked
    logger.info("malformed with the token %s %s", token)

    output = stream.getvalue()
    assert token not in output
    assert output.count(MASK) >= 5
    assert "in the message" in output
    assert "RuntimeError: refused token **********" in output
    assert "Stack (most recent call last)" in output


def test_an_exception_is_formatted_once_and_then_dropped_from_the_record() -> None:
    token = _token()
    register_secret(token)
    try:
        raise ValueError(token)
    except ValueError:
        record = logging.LogRecord("x", logging.ERROR, __file__, 1, "boom", (), sys.exc_info())
    assert RedactingFilter().filter(record) is True
    assert record.exc_info is None
    assert record.exc_text is not None
    assert token not in record.exc_text
    assert "ValueError: **********" in record.exc_text


def test_the_stack_info_of_a_record_is_masked() -> None:
    token = _token()
    register_secret(token)
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "m", (), None)
    record.stack_info = f"Stack (most recent call last):\n  frame with {token}"
    RedactingFilter().filter(record)
    assert record.stack_info == f"Stack (most recent call last):\n  frame with {MASK}"


def test_a_secret_containing_another_is_masked_whole() -> None:
    inner = _token()
    outer = f"prefix-{inner}-suffix"
    register_secret(inner)
    register_secret(outer)
    assert redact(f"a {outer} b {inner} c") == f"a {MASK} b {MASK} c"


def test_short_values_are_never_registered_so_common_words_stay_readable() -> None:
    Secret("order")
    register_secret("1234567")
    assert redact("order 1234567 filled") == "order 1234567 filled"
    eight = "x7Qp2Lz9"
    register_secret(eight)
    assert redact(f"id {eight}") == f"id {MASK}"


def test_registering_twice_changes_nothing() -> None:
    token = _token()
    register_secret(token)
    register_secret(token)
    assert redact(token) == MASK


def test_secrets_registered_from_many_threads_are_all_masked() -> None:
    tokens = [[_token() for _ in range(50)] for _ in range(8)]
    start = threading.Barrier(len(tokens))

    def register(batch: list[str]) -> None:
        start.wait(timeout=10)
        for token in batch:
            register_secret(token)
            # Redacting concurrently with other threads' registrations must stay consistent.
            assert redact(token) == MASK

    threads = [threading.Thread(target=register, args=(batch,)) for batch in tokens]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert not any(thread.is_alive() for thread in threads)
    every = [token for batch in tokens for token in batch]
    assert redact(" ".join(every)) == " ".join([MASK] * len(every))


def test_install_redaction_adds_one_filter_to_the_logger_and_each_root_handler() -> None:
    root = logging.getLogger()
    handler = logging.StreamHandler(io.StringIO())
    logger = logging.getLogger(f"ordergate.test.install.{uuid.uuid4().hex}")
    root.addHandler(handler)
    try:
        install_redaction(logger)
        install_redaction(logger)
        for target in (logger, handler):
            assert sum(isinstance(f, RedactingFilter) for f in target.filters) == 1
    finally:
        root.removeHandler(handler)


def test_install_redaction_defaults_to_the_root_logger() -> None:
    root = logging.getLogger()
    before = list(root.filters)
    try:
        install_redaction()
        install_redaction()
        added = [f for f in root.filters if f not in before]
        assert len([f for f in root.filters if isinstance(f, RedactingFilter)]) == 1
        assert all(isinstance(f, RedactingFilter) for f in added)
    finally:
        for f in root.filters:
            if f not in before:
                root.removeFilter(f)


def test_with_many_secrets_registered_each_is_still_masked_and_other_text_kept() -> None:
    many = [secrets.token_urlsafe(24) for _ in range(_redact.FEW + 10)]
    for value in many:
        register_secret(value)
    # Past FEW values the registry is searched by position, not value by value.
    assert _redact._few is None
    outer = many[0] + "-tail"
    register_secret(outer)
    line = f"a={many[5]} b={outer} c={many[-1]}{many[-2]} nothing else here"
    assert redact(line) == f"a={MASK} b={MASK} c={MASK}{MASK} nothing else here"
    assert redact("short") == "short"
    assert redact("no secret in this line at all, only words") == (
        "no secret in this line at all, only words"
    )


class _Clock:
    """The registry's clock, stepped by the test (from the real one's reading, so every
    release the suite made before is older than what the test releases)."""

    def __init__(self) -> None:
        self.now = time.monotonic()

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def stepped(monkeypatch: pytest.MonkeyPatch) -> _Clock:
    clock = _Clock()
    monkeypatch.setattr(_redact, "_clock", clock)
    monkeypatch.setattr(_redact, "_swept", float("-inf"))  # a sweep on this clock's time
    return clock


def _registered() -> int:
    with _redact._lock:
        return sum(len(bucket) for bucket in _redact._buckets.values())


def test_a_wrapped_value_is_masked_while_wrapped_and_a_day_after_then_forgotten(
    stepped: _Clock,
) -> None:
    token = _token()
    secret = Secret(token)
    stepped.now += 10 * _redact.RETAIN_S
    Secret(_token())  # the next hold forgets what was released long ago: not this one
    assert redact(f"x {token} y") == f"x {MASK} y"
    del secret
    gc.collect()  # the last Secret holding it is gone: released now
    Secret(_token())
    stepped.now += _redact.RETAIN_S - 1
    Secret(_token())
    assert redact(f"x {token} y") == f"x {MASK} y"  # still within the day
    stepped.now += _redact.SWEEP_S + 2
    Secret(_token())
    assert redact(f"x {token} y") == f"x {token} y"  # forgotten at the next sweep


def test_a_value_held_twice_stays_while_either_holds_it_and_a_registered_one_stays(
    stepped: _Clock,
) -> None:
    token, password = _token(), _token()
    first, second = Secret(token), Secret(token)
    register_secret(password)
    Secret(password)  # wrapped too: still the process's for good
    del first
    gc.collect()
    stepped.now += 2 * _redact.RETAIN_S
    Secret(_token())
    assert redact(token) == MASK  # the second still holds it
    del second
    gc.collect()
    Secret(_token())
    stepped.now += 2 * _redact.RETAIN_S
    Secret(_token())
    assert redact(token) == token
    assert redact(password) == MASK


def test_the_registry_does_not_grow_with_every_token_a_long_running_process_wraps(
    stepped: _Clock,
) -> None:
    Secret(_token())
    gc.collect()
    stepped.now += 2 * _redact.RETAIN_S
    Secret(_token())
    before = _registered()
    for _ in range(5_000):  # a day of refreshed upstream sessions, say
        Secret(_token())
        stepped.now += 1
    gc.collect()
    assert _registered() >= before + 5_000  # released within the day: all still masked
    stepped.now += 2 * _redact.RETAIN_S
    Secret(_token())
    assert _registered() <= before + 1
