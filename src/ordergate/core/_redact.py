"""Redaction: a process-wide registry of secret values and a logging filter that masks them.

Secrets are registered by value (``Secret`` registers itself), so an opaque token is masked
wherever it lands in a log record, even when nothing about it looks like a secret.
"""

from __future__ import annotations

import logging
import threading

__all__ = ["RedactingFilter", "install_redaction", "redact", "register_secret"]

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


def register_secret(value: str) -> None:
    """Mask ``value`` in every redacted text from now on (values under 8 characters are ignored)."""
    if len(value) < MIN_SECRET_LENGTH:
        return
    global _few
    key = value[:MIN_SECRET_LENGTH]
    with _lock:
        bucket = _buckets.get(key, ())
        if value in bucket:
            return
        _buckets[key] = tuple(sorted((*bucket, value), key=len, reverse=True))
        if _few is not None:
            _few = tuple(sorted((*_few, value), key=len, reverse=True)) if len(_few) < FEW else None


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
    """Masks registered secrets anywhere in a record; never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = redact(_message(record))
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
