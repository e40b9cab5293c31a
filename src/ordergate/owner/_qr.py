"""The enrolment URI as a QR code a phone can scan off a terminal (the ``qrcode`` package)."""

from __future__ import annotations

import io

import qrcode

__all__ = ["terminal_qr"]


def terminal_qr(text: str) -> str:
    """``text`` as a QR code drawn with block characters, dark on a light terminal margin."""
    code = qrcode.QRCode(border=2, error_correction=qrcode.constants.ERROR_CORRECT_M)
    code.add_data(text)
    code.make(fit=True)
    out = io.StringIO()
    code.print_ascii(out=out, invert=True)
    return out.getvalue()
