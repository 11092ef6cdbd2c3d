"""Old module paths keep working: each moved module imports under its old name as the very module of its new
home, with a DeprecationWarning naming that home (pytest_cua/_compat.py). Run in a fresh interpreter, so that
modules already imported by the plugin do not hide a broken alias."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pytest_cua._compat import MOVED, new_name

CHECK = r"""
import importlib, json, sys, warnings
old, new = sys.argv[1], sys.argv[2]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    module = importlib.import_module(old)
print(json.dumps({"same": module is importlib.import_module(new), "name": module.__name__,
                  "warnings": [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]}))
"""


def _imported(old: str, new: str) -> dict:
    done = subprocess.run([sys.executable, "-c", CHECK, old, new], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_module_path_is_the_new_module_with_a_warning(old: str) -> None:
    new = MOVED[old]
    seen = _imported(old, new)
    assert seen["same"] and seen["name"] == new
    assert any(f"{old} moved to {new}" in message for message in seen["warnings"]), seen["warnings"]


@pytest.mark.parametrize("old", ["pytest_cua.localorg.store", "pytest_cua.localorg.metadata.xmltree",
                                 "pytest_cua.desktop.client", "pytest_cua.reporting.allure"])
def test_submodules_of_a_moved_package_follow_it(old: str) -> None:
    new = new_name(old)
    assert new is not None
    seen = _imported(old, new)
    assert seen["same"] and seen["name"] == new


def test_old_names_of_modules_that_became_packages_still_resolve() -> None:
    code = ("import warnings; warnings.simplefilter('error', DeprecationWarning)\n"
            "import pytest_cua\n"
            "from pytest_cua import Task, Suite, milestone, Environment, Agent\n"
            "from pytest_cua.tasks.task import Task as T\n"
            "assert Task is T\n"
            "warnings.simplefilter('always')\n"
            "with warnings.catch_warnings(record=True) as caught:\n"
            "    warnings.simplefilter('always')\n"
            "    from pytest_cua.tasks import Task as Old\n"
            "assert Old is T and caught, 'pytest_cua.tasks.Task resolves with a warning'\n"
            "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_every_public_name_resolves() -> None:
    import pytest_cua

    for name in pytest_cua.__all__:
        assert getattr(pytest_cua, name) is not None, name
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        getattr(pytest_cua, "nothing_here")
