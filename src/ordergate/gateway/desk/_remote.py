"""``RemoteDesk``: the owner's desk of a running gateway, reached over its owner route.

The same acts as ``OwnerDesk``, with the same answers and the same ``DeskError`` refusals,
sent as JSON over loopback HTTP (``_routes``). ``probe`` says whether an ordergate gateway
answers at a URL at all, so the command line can fall back to the ledger when none runs —
and refuses to send anything to a server that answers but is not one.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any
from urllib.parse import quote

import httpx2

from ordergate.gateway.desk._errors import DeskError
from ordergate.gateway.desk._routes import OWNER_PREFIX
from ordergate.store import blocking

__all__ = ["NotAGateway", "RemoteDesk", "probe"]

_TIMEOUT_S = 120.0  # an approval runs the whole order path (review, place) before it answers
_PROBE_TIMEOUT_S = 3.0


class NotAGateway(Exception):
    """Something answers at the URL, but not an ordergate gateway's owner route."""


async def probe(url: str) -> bool:
    """Whether an ordergate gateway's owner route answers at ``url`` (``False``: nothing
    listens there). Raises ``NotAGateway`` when something else answers."""
    return await blocking(_probe, url)


def _probe(url: str) -> bool:
    try:
        with httpx2.Client(timeout=_PROBE_TIMEOUT_S) as http:
            response = http.get(url.rstrip("/") + OWNER_PREFIX + "/status")
    except httpx2.ConnectError:
        return False
    except httpx2.HTTPError as error:
        raise NotAGateway(f"{url} did not answer as a gateway ({type(error).__name__})") from None
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict) or ("owner" not in body and "error" not in body):
        raise NotAGateway(f"{url} answers, but not as an ordergate gateway's owner route")
    return True


class RemoteDesk:
    """The desk of the gateway at ``url`` (``async with RemoteDesk(url) as desk:``).

    Each act is one request, sent by a blocking client on a worker thread: the command line
    makes one at a time, and an asyncio client's connect (its happy-eyeballs cancellation)
    would blind coverage's tracer on Python 3.11 (CPython #106749) for the rest of a command.
    """

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")
        self._http = httpx2.Client(timeout=_TIMEOUT_S)

    async def __aenter__(self) -> RemoteDesk:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._http.close()

    async def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        target = self.url + OWNER_PREFIX + path
        try:
            if method == "GET":
                response = await blocking(self._http.get, target)
            else:
                response = await blocking(self._http.post, target, json=body or {})
        except httpx2.HTTPError as error:
            raise DeskError(
                502,
                "gateway_unreachable",
                f"No answer from the gateway at {self.url} ({type(error).__name__}).",
            ) from None
        try:
            answer = response.json()
        except ValueError:
            answer = None
        if response.status_code >= 400:
            error_body = answer.get("error") if isinstance(answer, dict) else None
            if isinstance(error_body, dict):
                raise DeskError(
                    response.status_code,
                    str(error_body.get("code", "refused")),
                    str(error_body.get("message", "The gateway refused the act.")),
                )
            raise DeskError(
                response.status_code,
                "refused",
                f"The gateway answered HTTP {response.status_code}.",
            )
        if not isinstance(answer, dict):
            raise DeskError(502, "bad_answer", "The gateway's answer was not JSON.")
        return answer

    async def status(self) -> dict[str, Any]:
        return dict(await self._call("GET", "/status"))

    async def approvals(self) -> list[dict[str, Any]]:
        return list((await self._call("GET", "/approvals"))["approvals"])

    async def connections(self) -> list[dict[str, Any]]:
        return list((await self._call("GET", "/connections"))["connections"])

    async def approve(self, approval_id: str, code: str | None) -> dict[str, Any]:
        path = f"/approvals/{approval_id}/approve"
        return dict(await self._call("POST", path, {"owner_code": code}))

    async def deny(self, approval_id: str) -> dict[str, Any]:
        return dict(await self._call("POST", f"/approvals/{approval_id}/deny"))

    async def pause(self, reason: str) -> dict[str, Any]:
        return dict(await self._call("POST", "/pause", {"reason": reason}))

    async def resume(self, code: str | None) -> dict[str, Any]:
        return dict(await self._call("POST", "/resume", {"owner_code": code}))

    async def apply_policy(self, text: str, code: str | None) -> dict[str, Any]:
        return dict(await self._call("POST", "/policy", {"text": text, "owner_code": code}))

    async def revoke(self, connection_id: str) -> dict[str, Any]:
        # A caller mint's id is ``caller:NAME#MINT``: "#" would end the path.
        return dict(await self._call("POST", f"/connections/{quote(connection_id)}/revoke"))

    async def mint(
        self,
        *,
        caller: str,
        profile: str,
        ttl_s: int,
        connection: str | None,
        code: str | None,
    ) -> dict[str, Any]:
        body = {
            "caller": caller,
            "profile": profile,
            "ttl_s": ttl_s,
            "connection": connection,
            "owner_code": code,
        }
        return dict(await self._call("POST", "/tokens", body))

    async def pending_acts(self) -> list[dict[str, Any]]:
        return list((await self._call("GET", "/delayed"))["delayed"])

    async def cancel_delayed(self, act_id: str | None) -> dict[str, Any]:
        return dict(await self._call("POST", "/delayed/cancel", {"id": act_id}))
