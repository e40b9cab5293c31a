"""One gateway replica as a child process: ``python -m replica_process`` (tests only).

It runs ``run_gateway`` exactly as ``ordergate serve --custody sealed --upstream URL --db URL
--redis URL`` does, with two differences a test needs: the clock is a ``SteppedClock`` at
the sandbox venue's instant (a real upstream's clock is real; the venue's stands at an open
session, and ``ORDERGATE_SANDBOX_START`` is for the embedded sandbox only — the same reason
``ordergate bench gateway`` starts its gateway this way), and the rate-limit counters use a
Redis key prefix of this test run's own (the stepped clock never leaves its minute, so
another run's counts must not be this one's). Everything else comes from the environment the
test sets: ``ORDERGATE_HOME`` (policy, owner enrolment), ``ORDERGATE_MASTER_SECRET`` (the
caller-token key is derived from it, as ``ordergate serve`` derives it), and
``REPLICA_*`` for the upstream, ledger, Redis, port, public URL, start instant, register
limit and reconcile interval. It prints ``READY`` on stderr once it serves.
"""

from __future__ import annotations

import asyncio
import os
import sys
from datetime import datetime

READY = "replica ready"


def main() -> None:
    from ordergate._serving import bind_socket
    from ordergate.callers import CallerKey
    from ordergate.core import Secret, SecurityClock, SteppedClock
    from ordergate.gateway._config import Custody, GatewayConfig, RateLimits
    from ordergate.gateway._limits import redis_counter
    from ordergate.gateway._serve import Serving, run_gateway
    from ordergate.runtime import Settings

    env = os.environ
    settings = Settings.resolve(upstream=env["REPLICA_UPSTREAM"], db=env["REPLICA_DB"])
    many = 1_000_000
    config = GatewayConfig(
        port=int(env["REPLICA_PORT"]),
        public_url=env["REPLICA_PUBLIC_URL"],
        custody=Custody.SEALED,
        master_secret=Secret(env["ORDERGATE_MASTER_SECRET"]),
        caller_key=CallerKey.from_environ(env),
        redis_url=env["REPLICA_REDIS"],
        limits=RateLimits(
            register=int(env["REPLICA_REGISTER_LIMIT"]),
            authorize=many,
            token=many,
            mcp=many,
            burst=many,  # a stepped clock never refills a budget: the burst is the whole run's
        ),
    )
    clock = SteppedClock(start=datetime.fromisoformat(env["REPLICA_START"]))
    sock = bind_socket(config.host, config.port)

    def ready(url: str, serving: Serving) -> None:
        print(READY, file=sys.stderr, flush=True)

    async def serve() -> None:
        counter = redis_counter(env["REPLICA_REDIS"], prefix=env["REPLICA_RL_PREFIX"])
        try:
            await run_gateway(
                settings,
                config,
                sock,
                clock=clock,
                security_clock=SecurityClock(clock),  # one timeline, as the bench keeps
                on_ready=ready,
                counter=counter,
                reconcile_every=float(env["REPLICA_RECONCILE_S"]),
            )
        finally:
            await counter.aclose()

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()


if __name__ == "__main__":
    main()
