"""A client's metadata documents served over real TLS on loopback, for the CIMD tests.

``tls_files(tmp_path)`` makes a certificate authority and a server certificate for
``localhost`` and ``127.0.0.1`` with ``cryptography``; ``trusting(files)`` is an SSL context
that trusts that authority only (the trust path a fetcher is given). ``documents(tmp_path)``
serves whatever the test puts in its ``answers`` (path → status, headers, body) at
``https://localhost:PORT``, on its own thread, and counts the requests each path got.
"""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import json
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvicorn
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from ordergate._serving import _Server, bind_socket

_START_S = 30


@dataclass(frozen=True)
class TlsFiles:
    authority: Path
    certificate: Path
    key: Path


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def tls_files(directory: Path) -> TlsFiles:
    """A CA and a server certificate it signed for ``localhost`` and ``127.0.0.1``."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(_name("ordergate test CA"))
        .issuer_name(_name("ordergate test CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True, content_commitment=False, key_encipherment=False,
                data_encipherment=False, key_agreement=False, key_cert_sign=True,
                crl_sign=True, encipher_only=False, decipher_only=False,
            ),
            critical=True,
        )
        .sign(ca_key, hashes.SHA256())
    )  # fmt: skip
    key = ec.generate_private_key(ec.SECP256R1())
    certificate = (
        x509.CertificateBuilder()
        .subject_name(_name("localhost"))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.ExtendedKeyUsage([x509.OID_SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    files = TlsFiles(directory / "ca.pem", directory / "server.pem", directory / "server.key")
    files.authority.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    files.certificate.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    files.key.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return files


def trusting(files: TlsFiles) -> ssl.SSLContext:
    """An SSL context that trusts the test CA and nothing else."""
    return ssl.create_default_context(cafile=str(files.authority))


@dataclass
class Answer:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    stream: bool = False
    """Sent chunked, with no ``Content-Length``."""


@dataclass
class Documents:
    base: str
    files: TlsFiles
    answers: dict[str, Answer] = field(default_factory=dict)
    requests: dict[str, int] = field(default_factory=dict)

    def url(self, path: str) -> str:
        return self.base + path

    def document(self, path: str, headers: dict[str, str] | None = None, **fields: Any) -> str:
        """Serve a client metadata document at ``path`` naming its own URL (unless
        ``client_id`` is given); returns the URL."""
        url = self.url(path)
        body = {"client_id": url, **fields}
        self.answers[path] = Answer(
            headers={"content-type": "application/json", **(headers or {})},
            body=json.dumps(body).encode(),
        )
        return url


@contextmanager
def documents(directory: Path) -> Iterator[Documents]:
    """Whatever ``answers`` holds, served over TLS at ``https://localhost:PORT``."""
    files = tls_files(directory)
    sock = bind_socket("127.0.0.1", 0)
    served = Documents(f"https://localhost:{sock.getsockname()[1]}", files)

    async def answer(request: Request) -> Response:
        path = request.url.path
        served.requests[path] = served.requests.get(path, 0) + 1
        found = served.answers.get(path)
        if found is None:
            return Response(status_code=404)
        if found.stream:
            chunks = [found.body[i : i + 1024] for i in range(0, len(found.body), 1024)]
            return StreamingResponse(iter(chunks), found.status, found.headers)
        return Response(found.body, status_code=found.status, headers=found.headers)

    app = Starlette(routes=[Route("/{path:path}", answer)])
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="off",
        ssl_certfile=str(files.certificate),
        ssl_keyfile=str(files.key),
    )
    server = _Server(config)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[sock])), daemon=True)
    thread.start()
    if not server.ready.wait(_START_S):
        raise RuntimeError("the document server did not start")
    try:
        yield served
    finally:
        server.exit_soon()
        thread.join(_START_S)
        sock.close()
