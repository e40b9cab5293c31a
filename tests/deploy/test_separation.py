"""The separation of issue 12 §3 on a real OS: the gateway runs as one user with its own 0700
home, an "agent" runs as another, and the agent reaches ``/mcp`` but none of the gateway's
secrets (the token file, the ledger, the owner enrolment)."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from owner_testkit import channel_act, enrol, owner_channel
from separation_testkit import (
    gateway_as,
    gateway_home,
    give,
    ordergate_as,
    os_user,
    python_as,
    requires_root,
)

from ordergate.client import TokenSet, write_token_file
from ordergate.core import RealtimeClock, Secret
from ordergate.ledger import open_ledger

pytestmark = requires_root

# The agent: standard library only, as a script on the owner's machine would be.
AGENT = r"""
import json, os, sqlite3, sys, urllib.error, urllib.request

given = json.loads(sys.argv[1])
seen = {}
request = urllib.request.Request(
    given["mcp"], data=b"{}", method="POST",
    headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream"},
)
try:
    with urllib.request.urlopen(request, timeout=10) as answer:
        seen["mcp"] = {"status": answer.status}
except urllib.error.HTTPError as error:
    seen["mcp"] = {"status": error.code, "challenge": error.headers.get("WWW-Authenticate", "")}
for name, path in given["files"].items():
    try:
        with open(path, "rb"):
            seen[name] = "opened"
    except OSError as error:
        seen[name] = type(error).__name__
try:
    os.listdir(given["home"])
    seen["home"] = "listed"
except OSError as error:
    seen["home"] = type(error).__name__
try:
    database = sqlite3.connect(f"file:{given['files']['ledger']}?mode=ro", uri=True)
    database.execute("SELECT count(*) FROM sqlite_master").fetchall()
    seen["sqlite"] = "read"
except sqlite3.Error as error:
    seen["sqlite"] = str(error)
print(json.dumps(seen))
"""


# The agent's attacks on the owner's authority: plain HTTP to loopback, as any local script.
ATTACKS = r"""
import base64, hashlib, json, re, secrets, sys, urllib.error, urllib.parse, urllib.request

given = json.loads(sys.argv[1])
base = given["base"]
seen = {}


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


opener = urllib.request.build_opener(NoRedirect)


def send(path, body=None, form=None, method="POST"):
    data, headers = None, {}
    if body is not None:
        data, headers = json.dumps(body).encode(), {"Content-Type": "application/json"}
    if form is not None:
        data = urllib.parse.urlencode(form).encode()
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    try:
        with opener.open(request, timeout=30) as answer:
            return answer.status, answer.read().decode(), dict(answer.headers)
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(), dict(error.headers)


def code_of(answer):
    status, text, headers = answer
    try:
        return status, json.loads(text).get("error", {}).get("code")
    except ValueError:
        return status, None


# 1. Self-consent: register a client, fetch the consent page, approve it as trader.
status, text, _ = send("/oauth/register", {"redirect_uris": ["http://127.0.0.1:9/cb"],
                                          "client_name": "innocent"})
client = json.loads(text)["client_id"]
verifier = secrets.token_urlsafe(48)
challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=")
query = urllib.parse.urlencode({
    "response_type": "code", "client_id": client, "redirect_uri": "http://127.0.0.1:9/cb",
    "code_challenge": challenge.decode(), "code_challenge_method": "S256", "state": "s",
})
status, page, _ = send("/oauth/authorize?" + query, method="GET")
hidden = dict(re.findall(r'type="hidden" name="([^"]+)" value="([^"]+)"', page))
for guess in ("", "123456"):
    status, page, _ = send("/oauth/authorize?" + query, method="GET")
    hidden = dict(re.findall(r'type="hidden" name="([^"]+)" value="([^"]+)"', page))
    status, text, headers = send("/oauth/consent", form={
        **hidden, "profile": "trader", "decision": "approve", "owner_code": guess})
    seen[f"consent:{guess or 'none'}"] = {"status": status,
                                          "code": "code=" in headers.get("location", "")}
# 2. The owner routes: none on the TCP listener; the owner channel is a socket in the
# gateway's own 0700 home, which this user cannot even reach.
approval = given["approval"]
seen["approve"] = send(f"/owner/approvals/{approval}/approve", {"owner_code": "000000"})[0]
seen["prepare"] = send("/owner/prepare", {"act": "resume", "params": {}})[0]
seen["pause"] = send("/owner/pause", {"reason": "the agent pauses"})[0]
seen["resume"] = send("/owner/resume", {"owner_code": "111111"})[0]
import socket
try:
    channel = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    channel.connect(given["socket"])
    seen["channel"] = "connected"
except OSError as error:
    seen["channel"] = type(error).__name__
print(json.dumps(seen))
"""
OPEN = "2026-12-01T15:00:00+00:00"  # a Tuesday, 10:00 in New York: the market is open


@pytest.mark.req("owner.separation.other-user")
@pytest.mark.req("owner.threat.self-consent")
@pytest.mark.req("owner.threat.local-commands")
def test_an_agent_of_another_user_cannot_consent_as_trader_approve_an_order_or_resume() -> None:
    with (
        os_user("og-gateway") as gateway,
        os_user("og-agent") as agent,
        gateway_home(gateway) as home,
    ):
        codes = enrol(home)
        give(home / "owner.json", gateway)
        clock = {"ORDERGATE_SANDBOX_START": OPEN}
        secret = {"ORDERGATE_MASTER_SECRET": "separation-master-secret-" + "s" * 24}
        with gateway_as(gateway, home, env={**clock, **secret}) as url:
            # An order waiting for the owner (the default policy holds every order).
            filed = ordergate_as(
                gateway, home, "order", "SPY", "buy", "--usd", "5", "--sandbox", "--json",
                env={**clock, "ORDERGATE_GATEWAY_URL": url},
            )  # fmt: skip
            assert filed.returncode == 0, filed.stderr
            approval = json.loads(filed.stdout.splitlines()[-1])["approval_id"]
            channel = home / "run" / "owner.sock"
            seen = python_as(
                agent, ATTACKS, {"base": url, "approval": approval, "socket": str(channel)}
            )
            # The agent's own copy of the command line: it cannot reach the owner channel (so
            # it sends nothing), and without the gateway it cannot open the ledger at all.
            through_gateway = ordergate_as(
                agent, Path("/nonexistent"), "approve", approval, "--code-stdin",
                "--owner-socket", str(channel), stdin=codes.wrong() + "\n",
            )  # fmt: skip
            around_it = ordergate_as(
                agent, home, "approve", approval, "--code-stdin",
                "--owner-socket", "/nonexistent/owner.sock", stdin=codes.wrong() + "\n",
            )  # fmt: skip
            with owner_channel(home) as owner_side:
                still = owner_side.get("/owner/status").json()
                pending = owner_side.get("/owner/approvals").json()["approvals"]
            # The owner, another user again (here: root), acts with the code on the channel.
            owner = channel_act(home, "resume", {}, codes.next()).json()
    for guess in ("none", "123456"):
        assert seen[f"consent:{guess}"]["code"] is False, seen
        assert seen[f"consent:{guess}"]["status"] in (401, 403), seen
    assert [seen[act] for act in ("approve", "prepare", "pause", "resume")] == [404] * 4
    assert seen["channel"] == "PermissionError"
    assert through_gateway.returncode == 2, through_gateway.stderr
    assert "nothing was sent" in through_gateway.stderr
    assert around_it.returncode == 2 and "cannot open the ledger" in around_it.stderr
    assert still["paused"] is False and [item["approval_id"] for item in pending] == [approval]
    assert owner["changed"] is False  # nothing was paused: the agent reached no owner route


# Another user's process on the owner channel: raw HTTP on the Unix socket.
PEER = r"""
import json, socket, sys

given = json.loads(sys.argv[1])
channel = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
channel.settimeout(30)
channel.connect(given["socket"])
channel.sendall(b"GET /owner/status HTTP/1.1\r\nHost: owner\r\nConnection: close\r\n\r\n")
answer = b""
while chunk := channel.recv(65536):
    answer += chunk
head, _, body = answer.partition(b"\r\n\r\n")
status = int(head.split()[1])
print(json.dumps({"status": status, "code": json.loads(body)["error"]["code"]}))
"""


@pytest.mark.req("owner.channel.peer-credentials")
def test_a_peer_of_another_os_user_is_refused_by_the_gateways_owner_channel() -> None:
    with (
        os_user("og-gateway") as gateway,
        os_user("og-agent") as agent,
        gateway_home(gateway) as home,
    ):
        enrol(home)
        give(home / "owner.json", gateway)
        with gateway_as(gateway, home) as _:
            channel = home / "run" / "owner.sock"
            # A slip that lets every user reach the socket file: the gateway still serves
            # only its own user, root, and the group its directory admits.
            home.chmod(0o711)
            channel.parent.chmod(0o711)
            channel.chmod(0o666)
            seen = python_as(agent, PEER, {"socket": str(channel)})
            with owner_channel(home) as root_side:
                served = root_side.get("/owner/status").status_code
            with open_ledger(f"sqlite:///{home / 'ledger.db'}", clock=RealtimeClock()) as ledger:
                refusals = [e for e in ledger.journal.entries() if e.kind == "owner_peer_refused"]
    assert seen == {"status": 403, "code": "peer_refused"}
    assert served == 200
    assert [entry.detail["uid"] for entry in refusals] == [agent.uid]


def _secrets(home: Path) -> dict[str, Path]:
    return {
        "token_file": home / "robinhood-tokens.json",
        "ledger": home / "ledger.db",
        "ledger_wal": home / "ledger.db-wal",
        "owner": home / "owner.json",
        "policy": home / "policy.toml",
    }


@pytest.mark.req("owner.separation.other-user")
def test_an_agent_of_another_user_reaches_mcp_but_cannot_read_the_gateways_secrets() -> None:
    with (
        os_user("og-gateway") as gateway,
        os_user("og-agent") as agent,
        gateway_home(gateway) as home,
    ):
        files = _secrets(home)
        write_token_file(
            files["token_file"], TokenSet(access_token=Secret("separation-placeholder-token"))
        )
        give(files["token_file"], gateway)
        enrol(home)
        give(files["owner"], gateway)
        with gateway_as(gateway, home) as url:
            for path in files.values():  # the gateway made the ledger, its WAL and the policy
                info = path.stat()
                assert (info.st_uid, stat.S_IMODE(info.st_mode)) == (gateway.uid, 0o600), path
            seen = python_as(
                agent,
                AGENT,
                {
                    "mcp": url + "/mcp",
                    "home": str(home),
                    "files": {name: str(path) for name, path in files.items()},
                },
            )
    assert seen["mcp"]["status"] == 401
    assert "resource_metadata=" in seen["mcp"]["challenge"]
    for name in files:
        assert seen[name] == "PermissionError", name
    assert seen["home"] == "PermissionError"
    assert seen["sqlite"] == "unable to open database file"


@pytest.mark.req("owner.separation.serve-refuses-open-home")
def test_the_gateways_user_is_refused_a_home_its_agent_could_read() -> None:
    with os_user("og-gateway") as gateway, gateway_home(gateway) as home:
        home.chmod(0o755)
        result = ordergate_as(gateway, home, "serve", "--sandbox", "--port", "0")
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines() == [
        f"home: {home} is readable by group and others, searchable by group and others "
        f"(mode 0755): chmod 700 {home}"
    ]


def test_service_install_as_another_user_than_root_says_it_needs_root() -> None:
    with os_user("og-agent") as agent:
        result = ordergate_as(agent, Path("/nonexistent"), "service", "install")
    assert result.returncode == 1, result.stderr
    assert "need root" in result.stderr
    assert "--print" in result.stderr
