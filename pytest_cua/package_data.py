"""The package's data files: the repository's ``fixtures/`` folder (org schema and seed, image recipes, ProSoft
start files), which pyproject's ``package-dir`` installs as the package ``pytest_cua._fixtures``.

    fixtures_dir("localorg")   # .../pytest_cua/_fixtures/localorg in a wheel, <checkout>/fixtures/localorg otherwise

Every reader goes through ``fixtures_dir``; the environment variables that point at another copy
(``PYTEST_CUA_LOCALORG_FIXTURES``, ``PYTEST_CUA_RECIPES``) are honoured by the readers themselves.
"""

from __future__ import annotations

import functools
import importlib.resources
from pathlib import Path

FIXTURES_PACKAGE = "pytest_cua._fixtures"
CHECKOUT_FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
"""Where the data folder stands in a checkout: ``fixtures/`` beside the ``pytest_cua/`` folder."""


@functools.cache
def fixtures_root() -> Path:
    """The data folder: the checkout's ``fixtures/`` when the package is imported from a checkout (so code and
    data come from one tree, even when another checkout holds the editable install), else the package
    ``pytest_cua._fixtures`` (a wheel), else ``fixtures/`` beside the package (an editable install made before
    pyproject mapped the package)."""
    if CHECKOUT_FIXTURES.is_dir() and (CHECKOUT_FIXTURES.parent / "pyproject.toml").is_file():
        return CHECKOUT_FIXTURES
    try:
        root = importlib.resources.files(FIXTURES_PACKAGE)
    except ModuleNotFoundError:
        return CHECKOUT_FIXTURES
    if not isinstance(root, Path):
        raise RuntimeError(f"{FIXTURES_PACKAGE} is not a folder on the file system ({root!r}): install pytest-cua "
                           f"unzipped")
    return root


def fixtures_dir(*parts: str) -> Path:
    """``fixtures/<parts>`` of the package's data (``fixtures_dir("images")``: the image recipes)."""
    return fixtures_root().joinpath(*parts)


def as_in_checkout(path: Path) -> Path:
    """Where ``path``, a file or folder of the package's data, stands in a checkout (``<root>/fixtures/...``
    beside ``<root>/pytest_cua/``); any other path is returned as it is. A relative path written in the
    checkout, such as a recipe's ``../../pytest_cua/envs/docker/executor.py``, resolves from there in a wheel too."""
    try:
        relative = path.resolve().relative_to(fixtures_root().resolve())
    except ValueError:
        return path
    return CHECKOUT_FIXTURES.joinpath(relative)
