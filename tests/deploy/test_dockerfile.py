"""The container image (``deploy/Dockerfile``), read as the builder would (issue 12 §3): no
Docker engine runs here, so what the image does is checked from its instructions."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx2
import pytest
from gateway_testkit import sandbox_gateway

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = REPO / "deploy" / "Dockerfile"
DOCKERIGNORE = REPO / ".dockerignore"
SECRET_WORDS = re.compile(r"SECRET|TOKEN|PASSPHRASE|PASSWORD|KEY|CREDENTIAL", re.IGNORECASE)


def instructions(text: str) -> list[tuple[str, str]]:
    """``(INSTRUCTION, arguments)`` in order: comments dropped, continuations joined."""
    found: list[tuple[str, str]] = []
    logical = ""
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            continue
        logical += line
        if logical.endswith("\\"):
            logical = logical[:-1] + " "
            continue
        if logical.strip():
            word, _, rest = logical.strip().partition(" ")
            found.append((word.upper(), " ".join(rest.split())))
        logical = ""
    return found


def stages() -> list[list[tuple[str, str]]]:
    split: list[list[tuple[str, str]]] = []
    for instruction in instructions(DOCKERFILE.read_text()):
        if instruction[0] == "FROM":
            split.append([])
        split[-1].append(instruction)
    return split


def final_stage() -> list[tuple[str, str]]:
    return stages()[-1]


def arguments(stage: list[tuple[str, str]], name: str) -> list[str]:
    return [rest for word, rest in stage if word == name]


def environment(stage: list[tuple[str, str]]) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for rest in arguments(stage, "ENV"):
        for pair in rest.split(" "):
            key, _, value = pair.partition("=")
            pairs[key] = value
    return pairs


@pytest.mark.req("owner.separation.own-user")
def test_the_image_runs_as_a_non_root_user_set_before_it_starts() -> None:
    stage = final_stage()
    words = [word for word, _ in stage]
    users = arguments(stage, "USER")
    assert users == ["ordergate"]
    assert words.index("USER") < words.index("ENTRYPOINT") < words.index("CMD")
    assert words.index("USER") > max(i for i, word in enumerate(words) if word == "RUN")


@pytest.mark.req("owner.separation.own-user")
def test_the_home_is_a_0700_volume_of_the_gateways_user() -> None:
    stage = final_stage()
    assert environment(stage)["ORDERGATE_HOME"] == "/data"
    assert arguments(stage, "VOLUME") == ["/data"]
    [setup] = arguments(stage, "RUN")
    assert "groupadd --system --gid 8787 ordergate" in setup
    assert "useradd --system --uid 8787 --gid ordergate --home-dir /data" in setup
    assert "chown ordergate:ordergate /data" in setup
    assert "chmod 0700 /data" in setup


def test_no_secret_is_baked_into_the_image() -> None:
    for stage in stages():
        for key in environment(stage):
            assert not SECRET_WORDS.search(key), key
        for rest in arguments(stage, "ARG"):
            assert not SECRET_WORDS.search(rest), rest


def test_it_installs_ordergate_from_the_lock_with_uv_on_python_3_11_slim() -> None:
    build, final = stages()
    assert build[0] == ("FROM", "python:3.11-slim-bookworm AS build")
    assert final[0] == ("FROM", "python:3.11-slim-bookworm")
    runs = arguments(build, "RUN")
    assert runs == [
        "uv sync --frozen --no-dev --no-install-project",
        "uv sync --frozen --no-dev --no-editable",
    ]
    for rest in arguments(build, "COPY"):
        if not rest.startswith("--from="):
            for source in rest.split(" ")[:-1]:
                assert (REPO / source).exists(), source


def test_the_gateway_listens_for_the_published_port_and_knows_its_loopback_url() -> None:
    stage = final_stage()
    assert arguments(stage, "EXPOSE") == ["8787"]
    assert json.loads(arguments(stage, "ENTRYPOINT")[0]) == ["ordergate"]
    assert json.loads(arguments(stage, "CMD")[0]) == [
        "serve", "--host", "0.0.0.0", "--port", "8787", "--public-url", "http://127.0.0.1:8787",
    ]  # fmt: skip
    assert "-p 127.0.0.1:8787:8787" in DOCKERFILE.read_text()


def test_the_build_context_holds_only_the_lock_and_the_sources() -> None:
    lines = [
        line
        for line in DOCKERIGNORE.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert lines[0] == "*"
    assert {line for line in lines if line.startswith("!")} == {
        "!pyproject.toml",
        "!uv.lock",
        "!README.md",
        "!src/",
    }


@pytest.mark.req("gateway.health")
def test_the_healthcheck_asks_healthz_on_the_published_port_which_the_gateway_serves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with sandbox_gateway(tmp_path, monkeypatch) as url, httpx2.Client(timeout=10) as http:
        serves = http.get(url + "/healthz").status_code == 200
    [check] = arguments(final_stage(), "HEALTHCHECK")
    assert serves
    options, _, command = check.partition(" CMD ")
    assert "--interval=" in options and "--timeout=" in options
    argv = json.loads(command)
    assert argv[:2] == ["python", "-c"]
    assert "http://127.0.0.1:8787/healthz" in argv[2]
    words = [word for word, _ in final_stage()]
    assert words.index("USER") < words.index("HEALTHCHECK")
