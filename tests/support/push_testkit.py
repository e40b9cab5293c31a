"""A push service on loopback (RFC 8030), and the browser's side of each subscription.

It refuses what a real push service refuses of an application server (RFC 8292): a push
without ``Authorization: vapid t=<JWT>, k=<key>``, a JWT not ES256-signed by ``k``, a ``k``
other than the key the subscription was made with (403, §4.2), an ``aud`` other than this
service's origin, an ``exp`` past or more than 24 hours ahead, a ``sub`` that is no
``mailto:``/``https:`` contact, a body not ``aes128gcm``. Then, as the browser would, it decrypts
the RFC 8291 payload with the subscription's private key and auth secret — written here from
RFC 8291 §3.3-3.4 and RFC 8188 §2 with ``cryptography``, not with the sender's library — and
keeps the JSON it carries. A subscription can be made to answer another status (``answer``:
410 for one withdrawn).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import os
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import uvicorn
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, utils
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ordergate._serving import _Server, bind_socket

_START_S = 30
_VAPID = re.compile(r"vapid t=([A-Za-z0-9_\-.]+),\s*k=([A-Za-z0-9_\-]+)")


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _point(key: ec.EllipticCurvePublicKey) -> bytes:
    return key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )


def _hmac(key: bytes, data: bytes) -> bytes:
    return hmac.new(key, data, hashlib.sha256).digest()


@dataclass
class Browser:
    """One subscription's browser side: its key pair and auth secret, and the server key
    (``applicationServerKey``) it subscribed with."""

    token: str
    private_key: ec.EllipticCurvePrivateKey
    auth: bytes
    server_key: str
    answer: int = 201

    def public(self) -> bytes:
        return _point(self.private_key.public_key())


def decrypt_aes128gcm(browser: Browser, body: bytes) -> bytes:
    """RFC 8291 §3.4 / RFC 8188 §2: the plaintext of a one-record ``aes128gcm`` body."""
    salt, record_size, id_length = body[:16], int.from_bytes(body[16:20], "big"), body[20]
    server_public = body[21 : 21 + id_length]
    ciphertext = body[21 + id_length :]
    assert id_length == 65 and record_size >= 18 and len(ciphertext) <= record_size
    sender = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), server_public)
    shared = browser.private_key.exchange(ec.ECDH(), sender)
    # RFC 8291 §3.3: IKM from the ECDH secret and the auth secret, bound to both public keys.
    prk_key = _hmac(browser.auth, shared)
    ikm = _hmac(prk_key, b"WebPush: info\x00" + browser.public() + server_public + b"\x01")
    prk = _hmac(salt, ikm)
    cek = _hmac(prk, b"Content-Encoding: aes128gcm\x00\x01")[:16]
    nonce = _hmac(prk, b"Content-Encoding: nonce\x00\x01")[:12]
    padded = AESGCM(cek).decrypt(nonce, ciphertext, None)
    stripped = padded.rstrip(b"\x00")
    assert stripped.endswith(b"\x02"), "the last record's delimiter"
    return stripped[:-1]


@dataclass
class PushService:
    """The service at ``url``: ``received`` (each decrypted payload, as JSON), ``refused``
    (each refusal's reason), ``arrived`` (set at each push that reached it)."""

    url: str
    now: Callable[[], datetime]
    browsers: dict[str, Browser] = field(default_factory=dict)
    received: list[dict[str, Any]] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    arrived: threading.Event = field(default_factory=threading.Event)

    def subscribe(self, server_key: str) -> dict[str, Any]:
        """A new browser subscribed with ``server_key``: its ``PushSubscription.toJSON()``."""
        browser = Browser(
            token=secrets.token_urlsafe(16),
            private_key=ec.generate_private_key(ec.SECP256R1()),
            auth=os.urandom(16),
            server_key=server_key,
        )
        self.browsers[browser.token] = browser
        return {
            "endpoint": f"{self.url}/push/{browser.token}",
            "keys": {"p256dh": b64(browser.public()), "auth": b64(browser.auth)},
        }

    def _vapid_problem(self, browser: Browser, header: str) -> str | None:
        found = _VAPID.fullmatch(header.strip())
        if found is None:
            return "no vapid authorization"
        token, key = found.groups()
        if key != browser.server_key:
            return "vapid key is not the subscription's"
        head, claims_part, signature = token.split(".")
        if json.loads(unb64(head)) != {"typ": "JWT", "alg": "ES256"}:
            return "jwt header"
        raw = unb64(signature)
        if len(raw) != 64:
            return "jwt signature"
        public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(key))
        der = utils.encode_dss_signature(
            int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")
        )
        try:
            public.verify(der, f"{head}.{claims_part}".encode(), ec.ECDSA(hashes.SHA256()))
        except InvalidSignature:
            return "jwt signature"
        claims = json.loads(unb64(claims_part))
        now = self.now().timestamp()
        if claims.get("aud") != self.url:
            return "jwt aud"
        if not now < claims.get("exp", 0) <= now + timedelta(hours=24).total_seconds():
            return "jwt exp"
        if not str(claims.get("sub", "")).startswith(("mailto:", "https://")):
            return "jwt sub"
        return None

    async def push(self, request: Request) -> Response:
        browser = self.browsers.get(request.path_params["token"])
        if browser is None:
            return Response(status_code=404)
        try:
            problem = self._vapid_problem(browser, request.headers.get("authorization", ""))
            if problem is None and request.headers.get("content-encoding") != "aes128gcm":
                problem = "content-encoding"
            if problem is None and not request.headers.get("ttl", "").isdigit():
                problem = "ttl"
            if problem is not None:
                self.refused.append(problem)
                return Response(status_code=403 if "key" in problem else 401)
            if browser.answer != 201:
                self.refused.append(f"answered {browser.answer}")
                return Response(status_code=browser.answer)
            plain = decrypt_aes128gcm(browser, await request.body())
            self.received.append(json.loads(plain))
            return Response(status_code=201)
        finally:
            self.arrived.set()


@contextmanager
def push_service(now: Callable[[], datetime]) -> Iterator[PushService]:
    """A push service on a free loopback port for the block; ``now``: the clock a token's
    expiry is judged by (the rail's)."""
    sock = bind_socket("127.0.0.1", 0)
    service = PushService(f"http://127.0.0.1:{sock.getsockname()[1]}", now)
    app = Starlette(routes=[Route("/push/{token}", service.push, methods=["POST"])])
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    server = _Server(config)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[sock])), daemon=True)
    thread.start()
    if not server.ready.wait(_START_S):
        raise RuntimeError("the push service did not start")
    try:
        yield service
    finally:
        server.exit_soon()
        thread.join(_START_S)
        sock.close()


def eventually(condition: Callable[[], bool], *, within_s: float = 20.0) -> None:
    """Wait until ``condition`` holds (a background push is due), at most ``within_s``."""
    deadline = time.monotonic() + within_s
    pause = threading.Event()
    while not condition():
        assert time.monotonic() < deadline, "the condition did not come to hold in time"
        pause.wait(0.02)
