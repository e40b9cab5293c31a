"""A stand-in for the person's browser, for clients that open one to sign in (``BROWSER``):
it hands the URL it was asked to open to the test that is listening on ``HANDOFF_PORT``,
which then plays the person at the consent page."""

from __future__ import annotations

import os
import socket
import sys

with socket.create_connection(("127.0.0.1", int(os.environ["HANDOFF_PORT"])), timeout=30) as s:
    s.sendall(sys.argv[1].encode())
