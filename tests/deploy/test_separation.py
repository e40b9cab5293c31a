"""The separation of issue 12 §3 on a real OS: the gateway runs as one user with its own 0700
home, an "agent" runs as another, and the agent reaches ``/mcp`` but none of the gateway's
secrets (the token file, the ledger, the owner enrolment)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
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
from ordergate.core import Secret, create_private

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
        # A placeholder until the owner enrolment (issue 12 §1) writes the real one.
        create_private(files["owner"], b'{"placeholder": true}\n')
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
