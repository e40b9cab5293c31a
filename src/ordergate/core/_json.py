"""``compact_json``: one compact JSON encoder, built once, for a hot path's every call.

``json.dumps`` with any option (``separators``, ``default``) builds a ``JSONEncoder`` and, in
it, the C encoder on every call; for the few hundred bytes of a forwarded answer that building
is most of the call (``ordergate bench gateway``: ~20 of ~25 µs a dump on this machine). The
encoder here is the same C encoder with the same settings, made once: the text is what
``json.dumps(value, separators=(",", ":"), default=default)`` writes, character for
character (ASCII only). Values are never circular here (they come from
parsed JSON and literals), so it keeps no markers; a cycle would end in ``RecursionError``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json import encoder as _encoder
from typing import Any

__all__ = ["compact_json", "decode_json", "json_text"]


def json_text(body: bytes) -> str:
    """``body`` decoded as ``json.loads`` decodes bytes (the encoding detected from its first
    bytes, a UTF-8 BOM accepted); an object in plain UTF-8 — what every peer sends — without
    the detecting."""
    utf8 = body[:1] == b"{" and body[1:2] != b"\x00"  # no BOM, not UTF-16/32
    return body.decode("utf-8" if utf8 else json.detect_encoding(body), "surrogatepass")


def decode_json(decoder: json.JSONDecoder, body: bytes) -> Any:
    """``decoder.decode(json_text(body))``: the value, raising what that raises. A JSON
    object in plain UTF-8 with nothing around it (what every peer sends) goes to the
    decoder's own scanner at once, without ``decode``'s two whitespace matches and frames
    (the same scanner, so the same value and the same errors; anything after the object is
    left to ``decode``, which refuses it)."""
    if body[:1] == b"{" and body[-1:] == b"}" and body[1:2] != b"\x00":
        text = body.decode("utf-8", "surrogatepass")
        value, end = decoder.scan_once(text, 0)  # type: ignore[attr-defined]
        if end == len(text):
            return value
        return decoder.decode(text)
    return decoder.decode(json_text(body))


def compact_json(default: Callable[[Any], Any]) -> Callable[[Any], str]:
    """``encode(value)``: ``value`` as compact JSON text, ``default`` asked for any value JSON
    has no form for (it returns one that has, or raises ``TypeError``)."""
    make = getattr(_encoder, "c_make_encoder", None)  # not in the stubs; None without C
    if make is None:  # an interpreter without the C accelerator: json's own, once
        encoder = json.JSONEncoder(separators=(",", ":"), default=default)
        return encoder.encode
    scan = make(None, default, _encoder.encode_basestring_ascii, None, ":", ",", False, False, True)

    def encode(value: Any) -> str:
        return "".join(scan(value, 0))

    return encode
