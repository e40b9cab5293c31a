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
# Longest first, so a secret that contains another is masked whole rather than leaving its
# ends in the clear. Writers rebuild the tuple under the lock; readers take the current one
# without locking, because rebinding a module global is atomic.
_ordered: tuple[str, ...] = ()


def register_secret(value: str) -> None:
    """Mask ``value`` in every redacted text from now on (values under 8 characters are ignored)."""
    global _ordered
    if len(value) < MIN_SECRET_LENGTH:
        return
    with _lock:
        if value not in _ordered:
            _ordered = tuple(sorted((*_ordered, value), key=len, reverse=True))


def redact(text: str) -> str:
    """``text`` with every registered secret replaced by ``**********``."""
    # Plain substring search per value: C speed, where one big regex alternation would be
    # recompiled on every registration and tried branch by branch at every position.
    for value in _ordered:
        if value in text:
            text = text.replace(value, MASK)
    return text


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
