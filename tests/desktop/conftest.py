"""Fixtures of the desktop tests (``docker_client`` is the root conftest's): the base image,
one Docker environment per test module, and a second dockerd over TCP with TLS (``remote_docker``)."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest

from .desktop_helpers import BASE_IMAGE, make_env


@pytest.fixture(scope="session")
def base_image(docker_client: Any) -> str:
    """The cua-desktop-base image, built from its recipe when missing or outdated (minutes the first time)."""
    from pytest_cua.envs.docker.images import build_image
    from pytest_cua.envs.docker.recipes import load_recipe

    build_image(load_recipe(BASE_IMAGE), client=docker_client, progress=lambda line: None)
    return BASE_IMAGE


@pytest.fixture(scope="module")
def desktop(base_image: str) -> Iterator[Any]:
    """A running Docker environment (one per module) with its first snapshot taken."""
    env = make_env(base_image)
    env.test_snapshot = env.snapshot()
    yield env
    env.close()



@dataclass(frozen=True)
class RemoteDocker:
    """The second dockerd of scripts/remote_dockerd.sh: where it listens and the client certificates."""

    url: str
    tls_dir: str
    script: Path

    def options(self) -> list[str]:
        return ["--cua-docker-hosts", self.url, "--cua-docker-tls-dir", self.tls_dir]

    def client(self) -> Any:
        from pytest_cua.envs.docker.hosts import DockerHost, connect

        return connect(DockerHost(self.url, Path(self.tls_dir)))


@pytest.fixture(scope="session")
def remote_docker(docker_client: Any) -> Iterator[RemoteDocker]:
    """A second dockerd on tcp://127.0.0.1 with --tlsverify standing in for a remote daemon (started unless it
    runs; stopped at the end when this session started it; its data root under /tmp stays, so the office image
    is sent to it once, not once per session: ``scripts/remote_dockerd.sh purge`` removes it)."""
    script = Path(__file__).resolve().parents[2] / "scripts" / "remote_dockerd.sh"
    was_running = subprocess.run(["sh", str(script), "status"], capture_output=True, timeout=60).returncode == 0
    start = subprocess.run(["sh", str(script), "start"], capture_output=True, text=True, timeout=180)
    if start.returncode != 0:
        pytest.fail(f"scripts/remote_dockerd.sh start failed:\n{start.stderr[-3000:]}", pytrace=False)
    env = dict(line.split("=", 1) for line in subprocess.run(
        ["sh", str(script), "env"], capture_output=True, text=True, check=True, timeout=60).stdout.split())
    yield RemoteDocker(env["DOCKER_HOST"], env["DOCKER_CERT_PATH"], script)
    if not was_running:
        subprocess.run(["sh", str(script), "stop"], capture_output=True, timeout=120)
