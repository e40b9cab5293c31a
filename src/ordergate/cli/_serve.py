"""``ordergate serve``: the gateway — an MCP server with its own OAuth in front of the upstream.

Point any MCP client at ``http://127.0.0.1:8787/mcp``. The person approves each client on the
gateway's consent page; reads pass through, and every order goes through the guard (paper
unless live is armed). With no upstream configured it runs against an embedded sandbox and
says so. With ``--upstream URL`` and no ``ordergate login`` for it, each person signs in at
the upstream after approving a client, and the gateway keeps that session sealed under
``ORDERGATE_MASTER_SECRET`` (at least 32 characters; without it nobody can connect, and the
consent page says why). With one owner session (owner custody or the embedded sandbox) it
grades each filled placement one trading day after its fill, every five minutes
(``ordergate record``), and marks the account's equity on the ledger every five minutes (the
console's equity curve; orders mark it too); ``--public-record`` serves the hashed track
records at ``/record``. Approving a client on the consent page asks for the owner code; with
nobody enrolled only the monitor profile can be granted, and bound beyond loopback it refuses
to start until an owner is enrolled (``ordergate owner init``). It refuses to start while
``ORDERGATE_HOME`` or a secret in it (the token file, the ledger, the owner enrolment) is open
to another OS user, or the policy or a profile can be changed by one: one line per problem,
naming the file and the fix
(``ordergate.runtime.check_home``). Exit 2 for a configuration that cannot be used, 1 when
the upstream cannot be reached.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ordergate.cli._options import (
    DbOption,
    PolicyOption,
    SandboxOption,
    UpstreamOption,
    fail,
    settings_from,
)
from ordergate.core import ConfigError, Secret, ToolError

if TYPE_CHECKING:
    from ordergate.callers import CallerKey
    from ordergate.gateway.server import GatewayConfig, Serving
    from ordergate.runtime import Settings

__all__ = ["serve_command"]


def serve_command(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on (0 picks a free one).")] = 8787,
    public_url: Annotated[
        str | None,
        typer.Option(
            "--public-url", help="The URL clients reach the gateway at (default http://HOST:PORT)."
        ),
    ] = None,
    sandbox: SandboxOption = False,
    sandbox_start: Annotated[
        str | None,
        typer.Option(
            "--sandbox-start",
            metavar="ISO",
            help="Put the embedded sandbox's market at this instant, ISO-8601 with zone (e.g. "
            "2026-12-01T15:00:00Z, a Tuesday's regular session); it runs at wall speed from "
            "there (also ORDERGATE_SANDBOX_START). Only the market moves: tokens, codes, "
            "approvals and rate limits keep wall time, so `ordergate token mint` tokens work.",
            show_default=False,
        ),
    ] = None,
    upstream: UpstreamOption = None,
    policy: PolicyOption = None,
    db: DbOption = None,
    custody: Annotated[
        str,
        typer.Option(
            help=(
                "Whose upstream session a connection acts on: 'owner' (the one `ordergate "
                "login` or the embedded sandbox set up), 'sealed' (each person signs in at the "
                "upstream after approving; the session is sealed under ORDERGATE_MASTER_SECRET),"
                " or 'auto' (sealed for an --upstream nobody has logged in to, else owner)."
            )
        ),
    ] = "auto",
    key_provider: Annotated[
        str,
        typer.Option(
            "--key-provider",
            envvar="ORDERGATE_KEY_PROVIDER",
            help=(
                "Who holds the key that wraps each sealed connection's data key: 'master' "
                "(derived from ORDERGATE_MASTER_SECRET) or 'pkcs11' (a non-extractable key on "
                "the token ORDERGATE_PKCS11_MODULE and ORDERGATE_PKCS11_TOKEN name; its PIN in "
                "the 0600 file ORDERGATE_PKCS11_PIN_FILE or in ORDERGATE_PKCS11_PIN, never "
                "on the command line). See `ordergate keys rotate --help`."
            ),
        ),
    ] = "master",
    redis: Annotated[
        str | None,
        typer.Option(
            envvar="ORDERGATE_REDIS_URL",
            help=(
                "Redis for the rate-limit counters, each connection's budget and the upstream tool "
                "lists, shared by every replica (default: in memory)."
            ),
        ),
    ] = None,
    rate_limit: Annotated[
        list[str] | None,
        typer.Option(
            "--rate-limit",
            help=(
                "A limit, CLASS=N; repeat for several. Each connection (each agent) has its own "
                "budget: mcp calls a second on average (default 4), in bursts of up to burst "
                "(default 8), the pace Robinhood itself tolerates (4 calls/s passed, 8/s drew "
                "RATE_LIMITED); over it an MCP request gets 429 with Retry-After and a JSON-RPC "
                "error. What the gateway answers itself (initialize, the tool list, gate_* "
                "tools, paper book reads) spends local (default 20) in bursts of local_burst "
                "(default 60). Per client IP (every loopback address counts as one; others by "
                "/24 or /64), "
                "requests a minute: register, authorize, token (defaults 3, 10, 10), "
                "unauthenticated (MCP requests with a refused token, default 60), console and "
                "owner (the owner's console and routes, defaults 120 and 60)."
            ),
        ),
    ] = None,
    trusted_proxy: Annotated[
        list[str] | None,
        typer.Option(
            "--trusted-proxy",
            help=(
                "A reverse proxy (address or network, e.g. 10.0.0.0/8) whose X-Forwarded-For "
                "names the client for the rate limits. Without one the socket's peer is the "
                "client and forwarded headers are ignored. Repeat for several."
            ),
        ),
    ] = None,
    owner_socket: Annotated[
        Path | None,
        typer.Option(
            "--owner-socket",
            metavar="PATH",
            envvar="ORDERGATE_OWNER_SOCKET",
            help=(
                "The owner channel: the Unix socket the owner's commands (approve, resume, "
                "policy apply, token mint, ...) reach the gateway on; never served on TCP. Its "
                "directory must be this user's and writable by nobody else (0750 lets its "
                "group in). Default $ORDERGATE_HOME/run/owner.sock."
            ),
            show_default=False,
        ),
    ] = None,
    cimd_allow_private: Annotated[
        bool,
        typer.Option(
            "--cimd-allow-private",
            envvar="ORDERGATE_CIMD_ALLOW_PRIVATE",
            help=(
                "Let a client that names itself by the URL of its metadata document (CIMD) "
                "publish it on a private, loopback or link-local address; off by default, so "
                "a client id can never make the gateway reach into its own network."
            ),
        ),
    ] = False,
    push_contact: Annotated[
        str | None,
        typer.Option(
            "--push-contact",
            metavar="URI",
            envvar="ORDERGATE_PUSH_CONTACT",
            help=(
                "On a hosted rail, tell each person's phone (Web Push) when an order of "
                "theirs is held, signed with the rail's VAPID key under this contact (a "
                "mailto: or https:// URI push services may write to). Off by default."
            ),
            show_default=False,
        ),
    ] = None,
    push_allow_private: Annotated[
        bool,
        typer.Option(
            "--push-allow-private",
            envvar="ORDERGATE_PUSH_ALLOW_PRIVATE",
            help=(
                "Accept push endpoints over http and on private, loopback or link-local "
                "addresses (a push service on your own network); off by default."
            ),
        ),
    ] = False,
    cimd_ca_file: Annotated[
        Path | None,
        typer.Option(
            "--cimd-ca-file",
            metavar="PEM",
            envvar="ORDERGATE_CIMD_CA_FILE",
            help=(
                "Trust only the CAs in this PEM file for the TLS of clients' metadata "
                "documents (default: the system's trust store)."
            ),
            show_default=False,
        ),
    ] = None,
    public_record: Annotated[
        bool,
        typer.Option(
            "--public-record",
            help=(
                "Also serve the public record page at /record (and /record.json), without a "
                "token: each identity hashed, its graded count, mean and median excess bps "
                "over SPY, hit rate and rank; nothing else. Off by default."
            ),
        ),
    ] = False,
) -> None:
    """Serve the gateway: MCP at /mcp with its own OAuth; every order through the guard.

    With one owner session it also grades each filled placement a trading day on and
    marks the account's equity every five minutes for the console's equity curve.
    """
    from ordergate.gateway.keys import KeyProviderError, provider_from_env
    from ordergate.gateway.server import Custody, GatewayConfig, RateLimits
    from ordergate.runtime import check_home

    settings = settings_from(policy, db, upstream, sandbox, sandbox_start)
    problems = check_home(settings)
    for problem in problems:
        typer.echo(f"home: {problem}", err=True)
    if problems:
        raise typer.Exit(2)
    master = os.environ.get("ORDERGATE_MASTER_SECRET") or None
    try:
        try:
            chosen = Custody(custody)
        except ValueError:
            raise ConfigError("custody", "must be auto, owner or sealed") from None
        keys = (
            provider_from_env(os.environ, Secret(master), choice=key_provider) if master else None
        )
        config = GatewayConfig(
            custody=chosen,
            master_secret=Secret(master) if master else None,
            key_provider=keys,
            redis_url=redis,
            caller_key=_caller_key(),
            limits=RateLimits().overridden(rate_limit or []),
            trusted_proxies=tuple(trusted_proxy or ()),
            host=host,
            port=port,
            public_url=public_url or "",
            public_record=public_record,
            owner_socket=owner_socket,
            cimd_allow_private=cimd_allow_private,
            cimd_ca_file=cimd_ca_file,
            push_contact=push_contact,
            push_allow_private=push_allow_private,
        )
    except ConfigError as error:
        raise fail(f"configuration: {error}", 2) from None
    except KeyProviderError as error:
        raise fail(f"key provider: {error}", 2) from None
    try:
        _run(settings, config, host, port)
    finally:
        if keys is not None:
            keys.close()


def _run(settings: Settings, config: GatewayConfig, host: str, port: int) -> None:
    from sqlalchemy.exc import SQLAlchemyError

    from ordergate._serving import bind_socket, run_fast
    from ordergate.gateway.server import run_gateway
    from ordergate.ledger import LedgerError
    from ordergate.profiles import ProfileError

    try:
        # Bound now (a taken port fails here, and port 0 is known for the banner), listening
        # only once the gateway has loaded its policy and profiles: a script that waits for
        # the port is never answered by a gateway about to exit on a bad profile.
        sock = bind_socket(host, port, listen=False)
    except OSError as error:
        raise fail(f"cannot listen on {host}:{port}: {error.strerror}", 2) from None

    def ready(url: str, serving: Serving) -> None:
        for note in serving.notes:
            typer.echo(note, err=True)
        typer.echo(f"ordergate gateway: point MCP clients at {url}/mcp (Ctrl+C stops)", err=True)

    try:
        clocks = settings.clocks()
        run_fast(
            run_gateway(
                settings,
                config,
                sock,
                clock=clocks.market,
                security_clock=clocks.security,
                on_ready=ready,
            )
        )
    except KeyboardInterrupt:
        pass
    except ProfileError as error:
        raise fail(f"profile: {error}", 2) from None
    except ConfigError as error:
        raise fail(f"policy: {error.reason if error.key == 'policy' else error}", 2) from None
    except (LedgerError, SQLAlchemyError) as error:
        raise fail(f"ledger: {str(error).splitlines()[0]}", 2) from None
    except ToolError as error:
        raise fail(f"upstream: {error}", 1) from None
    finally:
        sock.close()


def _caller_key() -> CallerKey | None:
    """The host's caller-token key when one is configured (``ConfigError`` when it is set but
    unusable); ``None`` when neither variable is set: caller tokens are then refused."""
    from ordergate.callers import ENV_CALLER_TOKEN_KEY, ENV_MASTER_SECRET, CallerKey

    if not (os.environ.get(ENV_CALLER_TOKEN_KEY) or os.environ.get(ENV_MASTER_SECRET)):
        return None
    return CallerKey.from_environ(os.environ)
