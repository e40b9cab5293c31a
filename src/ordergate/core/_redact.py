"""Redaction: a process-wide registry of secret values and a logging filter that masks them.

Secrets are registered by value (``Secret`` registers itself), so an opaque token is masked
wherever it lands in a log record, even when nothing about it looks like a secret.

A value a ``Secret`` registered stays registered while any ``Secret`` holds it and for
``RETAIN_S`` (a day) after the last one is gone, then is forgotten (within ``SWEEP_S``): a
long-running gateway wraps every upstream token it refreshes, and the registry must not grow
with each one forever. A day outlives any token's use (an access token lives an hour or so;
a refreshed refresh token is spent), and a value wrapped again is registered again. A value
registered with ``register_secret`` itself (a password) stays for the life of the process.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque

from ordergate.core._inert import inert

__all__ = [
    "RETAIN_S",
    "RedactingFilter",
    "hold_secret",
    "install_redaction",
    "redact",
    "register_secret",
    "release_secret",
]

MASK = "**********"

# Shorter values are never registered: real credentials (tokens, codes, verifiers) are long,
# while a short value such as "order" or "true" would blank ordinary words in every log line.
MIN_SECRET_LENGTH = 8

_FORMATTER = logging.Formatter()

_lock = threading.Lock()
# The registered values by their first ``MIN_SECRET_LENGTH`` characters, each bucket longest
# first, so a secret that contains another is masked whole rather than leaving its ends in the
# clear. A registration replaces one bucket (a tuple) under the lock; readers look buckets up
# without locking, because storing a key in a dict is atomic. Redacting a text costs one lookup
# per position of the text, however many secrets a long-running process has registered (a
# gateway registers every token it mints; a search per registered value would make every log
# line slower than the last).
_buckets: dict[str, tuple[str, ...]] = {}
# While few values are registered, all of them longest first: a plain substring search per
# value (C speed) beats a lookup per position then.
FEW = 64
_few: tuple[str, ...] | None = ()


RETAIN_S = 24 * 3600.0
"""How long a value stays masked at least after the last ``Secret`` holding it is gone."""
SWEEP_S = 3600.0
"""How often released values are looked at: one is forgotten within ``SWEEP_S`` after its
``RETAIN_S`` ran out."""

# Values ``Secret``s hold: how many hold each; values none holds any more: since when (the
# monotonic clock). A value registered by ``register_secret`` alone is in neither: permanent.
_holders: dict[str, int] = {}
_released: dict[str, float] = {}
_permanent: set[str] = set()
_releases: deque[tuple[str, float]] = deque()  # appended and popped atomically
_clock = time.monotonic
_swept = float("-inf")


def register_secret(value: str) -> None:
    """Mask ``value`` in every redacted text from now on, for the life of the process (values
    under 8 characters are ignored)."""
    if len(value) < MIN_SECRET_LENGTH:
        return
    with _lock:
        _count_releases()
        _permanent.add(value)
        _released.pop(value, None)
        _add(value)


def hold_secret(value: str) -> None:
    """Mask ``value`` while it is held (``Secret`` holds its value until it is collected) and
    ``RETAIN_S`` after its last ``release_secret``."""
    if len(value) < MIN_SECRET_LENGTH:
        return
    with _lock:
        _count_releases()
        _forget_released(_clock())
        _holders[value] = _holders.get(value, 0) + 1
        _released.pop(value, None)
        _add(value)


def release_secret(value: str) -> None:
    """One holder of ``value`` is gone (``hold_secret``'s other half). It takes no lock: a
    ``Secret`` may be collected anywhere, the lock's holder included (a garbage collection
    runs at any allocation), so the release is queued and counted at the next hold."""
    _releases.append((value, _clock()))


def _count_releases() -> None:
    """Count the queued releases (the lock held)."""
    while _releases:
        value, at = _releases.popleft()
        left = _holders.get(value, 0) - 1
        if left > 0:
            _holders[value] = left
            continue
        _holders.pop(value, None)
        if left == 0 and value not in _permanent:
            _released[value] = at


def _add(value: str) -> None:
    global _few
    key = value[:MIN_SECRET_LENGTH]
    bucket = _buckets.get(key, ())
    if value in bucket:
        return
    _buckets[key] = tuple(sorted((*bucket, value), key=len, reverse=True))
    if _few is not None:
        _few = tuple(sorted((*_few, value), key=len, reverse=True)) if len(_few) < FEW else None


def _forget_released(now: float) -> None:
    """Drop the values released ``RETAIN_S`` ago or more (the lock held), at most once per
    ``SWEEP_S``: a sweep reads every released value, so it is not paid on every hold."""
    global _few, _swept
    if now - _swept < SWEEP_S:
        return
    _swept = now
    forgotten = [value for value, since in _released.items() if now - since >= RETAIN_S]
    for value in forgotten:
        del _released[value]
        key = value[:MIN_SECRET_LENGTH]
        bucket = tuple(held for held in _buckets.get(key, ()) if held != value)
        if bucket:
            _buckets[key] = bucket
        else:
            _buckets.pop(key, None)
        if _few is not None:
            _few = tuple(held for held in _few if held != value)


def redact(text: str) -> str:
    """``text`` with every registered secret replaced by ``**********``."""
    few = _few
    if few is not None:
        for value in few:
            if value in text:
                text = text.replace(value, MASK)
        return text
    if len(text) < MIN_SECRET_LENGTH:
        return text
    pieces: list[str] = []
    start = 0  # the first character not yet copied to ``pieces``
    at = 0
    last = len(text) - MIN_SECRET_LENGTH
    while at <= last:
        bucket = _buckets.get(text[at : at + MIN_SECRET_LENGTH])
        found = (
            next((value for value in bucket if text.startswith(value, at)), None)
            if bucket
            else None
        )
        if found is None:
            at += 1
            continue
        pieces.append(text[start:at])
        pieces.append(MASK)
        at += len(found)
        start = at
    if start == 0:
        return text
    pieces.append(text[start:])
    return "".join(pieces)


class RedactingFilter(logging.Filter):
    """Masks registered secrets anywhere in a record, and makes its message inert
    (``inert``); never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        # Inert too: a message may carry a model's text (a rationale, a name), whose newlines
        # would forge log lines of their own and whose ESC bytes would reach a terminal.
        record.msg = inert(redact(_message(record)))
        record.args = ()
        if record.exc_info is not None:
            if not record.exc_text:
                record.exc_text = _FORMATTER.formatException(record.exc_info)
            # Handlers would format the live exception again, unredacted, if it stayed.
            record.exc_info = None
        # Every other string on the record too: exc_text, stack_info, and anything given as extra.
        for key, value in list(vars(record).items()):
            if isinstance(value, str):
                setattr(record, key, redact(value))
        return True


def _message(record: logging.LogRecord) -> str:
    try:
        return record.getMessage()
    except (TypeError, ValueError, KeyError):
        # A malformed call must not escape from the filter (Handler.handle does not guard it);
        # keep what was given so the line is still useful, redacted like the rest.
        return f"{record.msg} {record.args!r}"


def install_redaction(logger: logging.Logger | None = None) -> None:
    """Add a ``RedactingFilter`` to ``logger`` (default the root) and every root handler, once."""
    root = logging.getLogger()
    for target in [logger or root, *root.handlers]:
        if not any(isinstance(f, RedactingFilter) for f in target.filters):
            target.addFilter(RedactingFilter())
