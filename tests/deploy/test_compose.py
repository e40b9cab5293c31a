"""The replicated deployment (``deploy/compose.yaml`` and ``deploy/haproxy.cfg``), checked as
written (issue 14 §3): no Docker engine runs here, so the compose file is read as YAML and
the HAProxy configuration is validated by HAProxy itself (``haproxy -c``)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from system_testkit import HAPROXY_HOW, program

REPO = Path(__file__).resolve().parents[2]
COMPOSE = REPO / "deploy" / "compose.yaml"
HAPROXY = REPO / "deploy" / "haproxy.cfg"
GATEWAYS = ("gateway1", "gateway2", "gateway3")


def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return loaded


def option(command: list[str], name: str) -> str:
    return command[command.index(name) + 1]


def servers(config: str) -> list[tuple[str, str, int]]:
    """``(name, host, port)`` of each ``server`` line of the backend."""
    return [
        (name, host, int(port))
        for name, host, port in re.findall(r"(?m)^\s+server (\S+) ([^:\s]+):(\d+)", config)
    ]


@pytest.mark.req("gateway.replicas.deployment")
def test_haproxy_accepts_the_deployed_configuration() -> None:
    haproxy = program("haproxy", HAPROXY_HOW, "validate the deployed HAProxy configuration")
    checked = subprocess.run(
        [haproxy, "-c", "-f", str(HAPROXY)], capture_output=True, text=True, timeout=30
    )
    assert checked.returncode == 0, checked.stderr
    assert "Configuration file is valid" in checked.stdout + checked.stderr


@pytest.mark.req("gateway.replicas.deployment")
def test_the_compose_file_runs_three_alike_gateways_on_one_postgres_and_one_redis() -> None:
    services = compose()["services"]
    assert set(services) == {"postgres", "redis", "haproxy", *GATEWAYS}
    first = services[GATEWAYS[0]]
    for name in GATEWAYS:
        gateway = services[name]
        assert gateway == first, f"{name} differs from {GATEWAYS[0]}"
        assert "ports" not in gateway, f"{name} must be reached through HAProxy only"
    command = first["command"]
    assert command[0] == "serve"
    assert option(command, "--custody") == "sealed"
    assert option(command, "--host") == "0.0.0.0"
    assert first["environment"]["ORDERGATE_REDIS_URL"].startswith("redis://redis:")
    assert first["env_file"] == "ordergate.env"
    assert set(first["depends_on"]) == {"postgres", "redis"}
    # Secrets only at run time, from the env file: none written into the compose file.
    text = COMPOSE.read_text()
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            continue
        assert not re.search(r"(SECRET|PASSWORD)\s*[:=]\s*\S", line), line


@pytest.mark.req("gateway.replicas.deployment")
def test_the_compose_file_and_the_haproxy_configuration_agree() -> None:
    services = compose()["services"]
    config = HAPROXY.read_text()
    command = services[GATEWAYS[0]]["command"]
    port = int(option(command, "--port"))
    assert servers(config) == [(name, name, port) for name in GATEWAYS]
    assert re.search(r"(?m)^\s+balance roundrobin$", config)
    (bind,) = re.findall(r"(?m)^\s+bind :(\d+)$", config)
    proxy = services["haproxy"]
    assert proxy["ports"] == [f"127.0.0.1:{bind}:{bind}"]  # published on loopback only
    assert "./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in proxy["volumes"]
    # The gateways believe forwarded addresses from HAProxy's own fixed address only.
    address = proxy["networks"]["ordergate"]["ipv4_address"]
    assert option(command, "--trusted-proxy") == address
    assert re.search(r"(?m)^\s+option forwardfor$", config)
    # Every replica names the same public URL, the one HAProxy publishes.
    assert option(command, "--public-url").endswith(f":{bind}}}")
