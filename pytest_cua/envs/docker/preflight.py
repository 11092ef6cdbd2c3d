"""What the docker provider checks before any task runs (``DockerProvider.preflight``): a desktop suite whose
tasks could not get a desktop on this machine is one message up front, naming what to run, instead of the same
provisioning error on every task.

Checked, in this order, for the local daemon (desktops placed on ``--cua-docker-hosts`` are checked when they
are placed): the docker SDK and a daemon that answers (``machine.engine``, as ``pytest-cua doctor`` checks it),
then the suite's image: present and built from its recipe as it is now, or else buildable here (``build=auto``,
the image builder's programs and root present). Nothing is started, built or changed.
"""

from __future__ import annotations

from typing import Any

from pytest_cua.envs.docker.images import image_state, recipe_of
from pytest_cua.envs.docker.machine import builder_missing, engine
from pytest_cua.envs.docker.options import resolve_settings

DOCTOR = "`pytest-cua doctor` lists everything this machine lacks"


def preflight(config: Any, suite: Any) -> str | None:
    """Why no desktop of ``suite`` could be provisioned on the local daemon, with what to run; None when
    nothing certain is missing."""

    try:
        settings = resolve_settings(config, suite)
    except ValueError as exc:
        return str(exc)
    if settings.hosts:
        return None
    found = engine(keep=True)
    if not found.ok:
        return f"desktop suites need the Docker engine: {found.what} {found.detail}; run {found.fix}; {DOCTOR}"
    try:
        recipe, no_recipe = recipe_of(settings.image)
        state = image_state(found.client, settings.image, recipe.recipe_hash() if recipe is not None else None)
    finally:
        found.client.close()
    if state == "current" or (state == "outdated" and settings.build == "never"):
        return None
    name = settings.image.split(":")[0]
    if recipe is None:
        return f"docker image {settings.image!r} does not exist, and there is {no_recipe}"
    if settings.build == "never":
        return (f"docker image {settings.image!r} does not exist and --cua-docker-build is never: build it with "
                f"`pytest-cua image build {name}`")
    missing = builder_missing()
    if missing:
        what = "is not built" if state == "missing" else "is older than its recipe"
        return (f"docker image {settings.image!r} {what}, and building it needs {', '.join(missing)}, which this "
                f"machine lacks: run `bash scripts/install.sh --docker` (as root), then `pytest-cua image build "
                f"{name}`; {DOCTOR}")
    return None
