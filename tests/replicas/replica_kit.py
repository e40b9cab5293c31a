"""Three gateway replicas on one Postgres and one Redis behind a real HAProxy on loopback.

``replica_set`` starts, in order: a sandbox venue in this process (stepped clock at an open
session, so a test can hold one of its place calls), a scratch Postgres ledger with the
test's policy applied, one home shared by the replicas (policy, owner enrolment), three
``replica_process`` children on free loopback ports, each with the same master secret,
ledger and Redis, and the load balancer's URL as their public URL, and ``haproxy`` in front
of them (``deploy/haproxy.cfg`` with loopback addresses: round robin, TCP checks, a failed
connect redispatched). Each replica's stderr goes
to a file (never a pipe nobody drains). Everything is stopped when the block ends, whatever
the test did. ``Replicas.connect`` walks a person through both consent pages through the
load balancer and returns the connection's access token.
"""

from __future__ import annotations

import html
import os
import re
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
import pyotp
import pytest
from oauth_testkit import challenge_of, new_verifier, parse_form, person_enrolment
from owner_testkit import PASSPHRASE, OwnerCodes, apply_policy, enrol
from replica_process import READY
from system_testkit import HAPROXY_HOW, program

from ordergate.bench._ledger import scratch_postgres
from ordergate.bench._process import free_port
from ordergate.core import SteppedClock
from ordergate.gateway._owner import connection_digest
from ordergate.sandbox import Sandbox, SandboxConfig, SandboxServer

# Tuesday 2026-12-01, 10:00 in New York: the regular session is open.
OPEN = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
_CONNECTION_ID = re.compile(r'<code id="connection-id">([^<]+)</code>')
MASTER = "r" * 40
REDIRECT = "http://127.0.0.1:33418/callback"
BOUND_S = 30.0
START_BOUND_S = 90.0  # three interpreters importing at once on a loaded machine
REPLICAS = 3
PG_ENV = "ORDERGATE_TEST_PG_URL"
REDIS_ENV = "ORDERGATE_TEST_REDIS_URL"
HOW = (
    f"the replica test needs {PG_ENV} and {REDIS_ENV}, e.g. "
    f"{PG_ENV}=postgresql://postgres@127.0.0.1:5432/test "
    f"{REDIS_ENV}=redis://127.0.0.1:6379/0 (.ci/run sets both; it also installs haproxy)"
)
SUPPORT = Path(__file__).resolve().parents[1] / "support"
DEPLOYED_HAPROXY = Path(__file__).resolve().parents[2] / "deploy" / "haproxy.cfg"


def servers() -> tuple[str, str]:
    """The test Postgres and Redis, or a skip that says how to enable the test."""
    pg, redis = os.environ.get(PG_ENV), os.environ.get(REDIS_ENV)
    if not pg or not redis:
        pytest.skip(HOW)
    return pg, redis


def haproxy_config(port: int, backends: list[int]) -> str:
    """``deploy/haproxy.cfg`` on loopback: its own rules, with the listening port, the
    replicas' loopback ports for the compose services, no Docker DNS, and checks fast
    enough for a test (a killed replica leaves the rotation within a fraction of a second).
    """
    text = DEPLOYED_HAPROXY.read_text()
    text = re.sub(r"(?ms)^resolvers docker\n.*?\n\n", "", text)
    text = text.replace(" resolvers docker init-addr last,libc,none", "")
    text = text.replace("check inter 2s fall 1 rise 2", "check inter 200ms fall 1 rise 1")
    text = text.replace("bind :8787", f"bind 127.0.0.1:{port}")
    servers_text = "".join(
        f"    server gateway{n} 127.0.0.1:{backend}\n" for n, backend in enumerate(backends, 1)
    )
    text, count = re.subn(r"(?m)^    server gateway\d+ gateway\d+:8787\n", "", text)
    assert count == REPLICAS, "deploy/haproxy.cfg names a different number of replicas"
    return text.rstrip("\n") + "\n" + servers_text


def query(url: str) -> dict[str, str]:
    return {key: values[0] for key, values in parse_qs(urlsplit(url).query).items()}


def wait_for_port(port: int, process: subprocess.Popen[Any], deadline: float) -> None:
    """Return once something accepts on ``port``; ``AssertionError`` when ``process`` ends
    or ``deadline`` passes first."""
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"nothing listens on port {port}") from None
            _pause(process)


def _pause(process: subprocess.Popen[Any]) -> None:
    """A bounded wait between polls that ends early if ``process`` exits."""
    with suppress(subprocess.TimeoutExpired):
        process.wait(timeout=0.05)


@dataclass
class Replica:
    port: int
    process: subprocess.Popen[bytes]
    log: Path
    owner_socket: Path
    """This replica's owner channel (each its own: they share one home)."""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def kill(self) -> None:
        """SIGKILL: no shutdown, nothing flushed, sockets closed by the kernel."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=BOUND_S)


@dataclass
class Replicas:
    url: str
    """The load balancer's URL (every replica's public URL)."""
    replicas: list[Replica]
    venue: Sandbox
    db_url: str
    redis_url: str
    home: Path
    codes: OwnerCodes
    minted: list[str] = field(default_factory=list, repr=False)

    def register(self, http: httpx2.Client) -> httpx2.Response:
        return http.post(
            self.url + "/oauth/register",
            json={"redirect_uris": [REDIRECT], "client_name": "Replica Test"},
        )

    def connect(self) -> str:
        """The whole sealed-custody flow through the load balancer: the access token. A
        hosted connection starts in approval mode; its person then turns it off with their
        own code (a person trading freely under the rail's policy, as these tests race)."""
        verifier = new_verifier()
        with httpx2.Client(timeout=BOUND_S) as person:
            registered = self.register(person)
            assert registered.status_code == 201, registered.text
            client_id = registered.json()["client_id"]
            page = person.get(
                self.url + "/oauth/authorize",
                params={
                    "response_type": "code",
                    "client_id": client_id,
                    "redirect_uri": REDIRECT,
                    "code_challenge": challenge_of(verifier),
                    "code_challenge_method": "S256",
                    "state": "client-state",
                    "resource": self.url + "/mcp",
                },
            )
            assert page.status_code == 200, page.text
            consent = person.post(
                self.url + "/oauth/consent",
                data={
                    **parse_form(page.text).hidden,
                    "profile": "trader",
                    "decision": "approve",
                    "owner_code": PASSPHRASE,
                },
            )
            assert consent.status_code == 302, consent.text
            upstream = person.get(consent.headers["location"])
            assert upstream.status_code == 200, upstream.text
            form = parse_form(upstream.text)
            (tag,) = form.forms
            signed_in = person.post(
                upstream.url.join(tag["action"] or ""), data={**form.hidden, "decision": "approve"}
            )
            assert signed_in.status_code == 302, signed_in.text
            enrolment = person.get(signed_in.headers["location"])
            enrolled, secret = person_enrolment(enrolment.text, OPEN)
            shown = _CONNECTION_ID.search(enrolment.text)
            assert shown is not None, enrolment.text
            connection_id = html.unescape(shown.group(1))
            back = person.post(self.url + "/oauth/callback", data=enrolled)
            assert back.status_code == 302, back.text
            params = query(back.headers["location"])
            tokens = person.post(
                self.url + "/oauth/token",
                data={
                    "grant_type": "authorization_code",
                    "code": params["code"],
                    "redirect_uri": REDIRECT,
                    "client_id": client_id,
                    "code_verifier": verifier,
                    "resource": self.url + "/mcp",
                },
            )
            # The replicas' clock stands still: the person's next code is the next step's,
            # which the rail takes within its drift (each code once, a later step each time).
            freely = person.post(
                self.url + "/person/approval-mode",
                json={
                    "connection": connection_digest(connection_id),
                    "person_code": pyotp.TOTP(secret).at(OPEN + timedelta(seconds=30)),
                    "approval_mode": False,
                },
            )
            assert freely.status_code == 200, freely.text
        assert tokens.status_code == 200, tokens.text
        body: dict[str, Any] = tokens.json()
        self.minted += [params["code"], body["access_token"], body["refresh_token"]]
        access: str = body["access_token"]
        return access


@contextmanager
def replica_set(
    tmp_path: Path,
    policy: str,
    *,
    register_limit: int,
    reconcile_s: float = 1.0,
    replicas_n: int = REPLICAS,
    seed: int = 7,
) -> Iterator[Replicas]:
    """``replicas_n`` replicas (as many as ``deploy/haproxy.cfg`` names by default) in front of
    a venue on ``seed`` (the embedded sandbox's is 0: the same account as a command line's)."""
    pg, redis = servers()
    haproxy = program("haproxy", HAPROXY_HOW, "run the replica tests behind HAProxy")
    with ExitStack() as stack:
        clock = SteppedClock(start=OPEN)
        venue_server = SandboxServer(
            SandboxConfig(host="127.0.0.1", port=0, seed=seed), clock=clock
        )
        venue = venue_server.start()
        stack.callback(venue_server.stop)
        db_url = stack.enter_context(scratch_postgres(pg))
        home = tmp_path / "home"
        home.mkdir(mode=0o700)
        (home / "policy.toml").write_text(policy)
        (home / "policy.toml").chmod(0o600)
        apply_policy(db_url, policy)
        codes = enrol(home, passphrase=PASSPHRASE)
        front = free_port()
        public = f"http://127.0.0.1:{front}"
        ports = [free_port() for _ in range(replicas_n)]
        run = uuid.uuid4().hex
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith("ORDERGATE_") and not key.startswith("COV_")
        }
        env.update(
            ORDERGATE_HOME=str(home),
            ORDERGATE_MASTER_SECRET=MASTER,
            PYTHONPATH=str(SUPPORT),
            REPLICA_UPSTREAM=venue.mcp_url,
            REPLICA_DB=db_url,
            REPLICA_REDIS=redis,
            REPLICA_PUBLIC_URL=public,
            REPLICA_START=OPEN.isoformat(),
            REPLICA_REGISTER_LIMIT=str(register_limit),
            REPLICA_RECONCILE_S=str(reconcile_s),
            REPLICA_RL_PREFIX=f"ordergate:rl:test-{run}:",
        )
        replicas = []
        for n, port in enumerate(ports, 1):
            log = tmp_path / f"replica{n}.log"
            owner_socket = tmp_path / f"owner{n}" / "owner.sock"
            with log.open("wb") as sink:
                process = subprocess.Popen(
                    [sys.executable, "-m", "replica_process"],
                    env={
                        **env,
                        "REPLICA_PORT": str(port),
                        "ORDERGATE_OWNER_SOCKET": str(owner_socket),
                    },
                    stdout=subprocess.DEVNULL,
                    stderr=sink,
                )
            stack.callback(_stop, process)
            replicas.append(Replica(port, process, log, owner_socket))
        deadline = time.monotonic() + START_BOUND_S
        for replica in replicas:
            _await_ready(replica, deadline)
        config = tmp_path / "haproxy.cfg"
        config.write_text(haproxy_config(front, ports))
        with (tmp_path / "haproxy.log").open("wb") as sink:
            proxy = subprocess.Popen(
                [haproxy, "-db", "-f", str(config)], stdout=subprocess.DEVNULL, stderr=sink
            )
        stack.callback(_stop, proxy)
        wait_for_port(front, proxy, time.monotonic() + BOUND_S)
        yield Replicas(public, replicas, venue, db_url, redis, home, codes)


def _await_ready(replica: Replica, deadline: float) -> None:
    """Block until the replica's log shows the ready line (bounded by ``deadline``)."""
    while READY.encode() not in replica.log.read_bytes():
        if replica.process.poll() is not None or time.monotonic() > deadline:
            tail = replica.log.read_bytes()[-2000:].decode(errors="replace")
            raise AssertionError(f"replica on {replica.port} did not start: {tail}")
        _pause(replica.process)


def _stop(process: subprocess.Popen[Any]) -> None:
    if process.poll() is None:
        process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)
