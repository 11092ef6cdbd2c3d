"""What this machine has for desktop suites: a Docker engine that answers, and what building a desktop image
needs (the builder's programs and root). ``pytest-cua doctor`` and the provider's preflight both read it here."""

from __future__ import annotations

import importlib.util
import os
import shutil
from dataclasses import dataclass, field
from typing import Any

ENSURE_DOCKER = "scripts/ensure_docker.sh"
#: the programs ``images.build_image`` runs (``pytest_cua.cli.doctor.PROGRAMS`` says which package has each)
BUILDER_PROGRAMS = ("debootstrap", "chroot", "tar", "mount", "umount")


@dataclass(frozen=True)
class Engine:
    """The Docker engine as this machine has it: ``what`` is checked, ``detail`` what was found, ``fix`` what to run
    when it is not ``ok``."""

    what: str
    ok: bool
    detail: str
    fix: str = ""
    #: the client that answered, when ``engine(keep=True)`` (the caller closes it)
    client: Any = field(default=None, compare=False, repr=False)


def engine(timeout: float = 5, *, keep: bool = False) -> Engine:
    """The docker SDK, and a daemon that answers at ``DOCKER_HOST`` (or the default socket); ``keep``: the
    client that answered stays open in ``Engine.client`` for the caller's next questions."""
    if importlib.util.find_spec("docker") is None:
        return Engine("docker SDK", False, "missing", "pip install 'pytest-cua[desktop]' (or: bash scripts/install.sh "
                                                     "--docker)")
    try:
        import docker

        client = docker.from_env(timeout=timeout)
        try:
            version = client.version().get("Version", "?")
        except BaseException:
            client.close()
            raise
        if not keep:
            client.close()
        return Engine("docker engine", True, f"engine {version} answers", client=client if keep else None)
    except Exception as exc:  # noqa: BLE001 - any failure means no usable engine
        return Engine("docker engine", False, f"not reachable ({type(exc).__name__})",
                      f"bash {ENSURE_DOCKER} (installs docker.io and starts dockerd)")


def builder_missing() -> list[str]:
    """What building a desktop image needs and this machine lacks: the builder's programs, and root
    (debootstrap, chroot and mount run as root)."""
    missing = [name for name in BUILDER_PROGRAMS if shutil.which(name) is None]
    if os.geteuid() != 0:
        missing.append("root")
    return missing
