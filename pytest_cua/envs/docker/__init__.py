"""Desktop environments in Docker, one concept per module:

- ``environment``: ``DockerEnvironment``: provisioning, snapshot and rollback by container replacement, residue,
  tasks, actions;
- ``containers``: ``Box`` (one container and its executor connection), names, readiness, what could not be
  removed yet;
- ``startup``: what a task starts with (start files, programs, their windows, a settled screen);
- ``observation``: screenshot, accessibility tree and set-of-marks of the container's screen;
- ``axtree``: the tree's text, elements and the screen point of an element;
- ``provider``: the ``docker`` provider (``PROVIDER``, the entry point) and its sweep of dead workers;
- ``options``: the ``--cua-docker-*`` options and ``DockerSettings``;
- ``recipes``, ``images``: image recipes and builds;
- ``hosts``, ``certs``: docker hosts (placement, TLS) and the embedded org's certificates;
- ``leftovers``, ``overlay``: sweeping leftover containers and images, the fast diff of a container;
- ``client``: the connection to the in-container executor and the executor bundle;
- ``executor`` and ``executor_*``: the in-container executor (``executor_input``: the action whitelist and
  input; ``executor_axtree``, ``executor_vnc``, ``executor_record``: its op modules). They run inside the image's
  own Python, import nothing of pytest_cua, and are all copied into each container (every ``executor*.py``);
- ``takeover``: human takeover by VNC;
- ``cli``: the ``pytest-cua image`` / ``pytest-cua docker`` commands.

May import the core modules, ``tasks``, ``orgs`` (certificates of the embedded org), ``envs.base`` and
``envs.marks``; never ``agents``, ``episode``, ``results``, the plugin or the fixtures. ``PROVIDER`` (the
``docker`` entry point) is loaded on first use, so the commands and the executor bundle do not import the
environment.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "PROVIDER":
        from pytest_cua.envs.docker.provider import PROVIDER

        return PROVIDER
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
