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

from pytest_cua.envs.docker.options import resolve_settings

DOCTOR = "`pytest-cua doctor` lists everything this machine lacks"


def preflight(config: Any, suite: Any) -> str | None:
    """Why no desktop of ``suite`` could be provisioned on the local daemon, with what to run; None when
    nothing certain is missing."""
    from pytest_cua.envs.docker.machine import builder_missing, engine

    try:
        settings = resolve_settings(config, suite)
    except ValueError as exc:
        return str(exc)
    if settings.hosts:
        return None
    found = engine()
    if not found.ok:
        return f"desktop suites need the Docker engine: {found.what} {found.detail}; run {found.fix}; {DOCTOR}"
    state, recipe, no_recipe = _image_state(settings.image)
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


def _image_state(image: str) -> tuple[str, Any, str]:
    """``current`` (present, from its recipe as it is), ``outdated`` (present, from another version of its
    recipe) or ``missing``; the image's recipe (None: no recipe of that name) and then why there is none."""
    import docker

    from pytest_cua.envs.docker.images import LABEL_HASH, image_labels
    from pytest_cua.envs.docker.recipes import RecipeError, load_recipe

    no_recipe = ""
    try:
        recipe = load_recipe(image.split(":")[0])
    except RecipeError as exc:
        recipe, no_recipe = None, str(exc)
    client = docker.from_env(timeout=30)
    try:
        labels = image_labels(client, image)
    finally:
        client.close()
    if labels is None:
        return "missing", recipe, no_recipe
    if recipe is not None and labels.get(LABEL_HASH) != recipe.recipe_hash():
        return "outdated", recipe, no_recipe
    return "current", recipe, no_recipe
