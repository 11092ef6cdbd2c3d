"""Where the tests find SCUBA's release (``release_root.py``): one variable, ``$PYTEST_CUA_SCUBA_ROOT``, and a
default beside the repository (``<repository>/../shared/scuba/release``, from the module's own place); a test
that needs the release and does not find it is skipped naming the variable, and under ``CI=true`` fails.

The skip and the failure are seen from an inner pytest run of real release-needing tests of each kind (a
decorated test, a parametrized one whose parameters come from the release, a test calling
``require_release``, a module skipped at import, the shared folder's sample prerequisites) with the variable
pointing at an empty folder.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from . import release_root as rr

REPO = Path(__file__).resolve().parents[2]

#: release-needing tests, one of each way a test asks for the release
NEEDING = {
    "decorated": "tests/scuba/test_scuba_rules.py::test_every_release_template_we_have_is_in_the_weights_table",
    "parametrized": "tests/scuba/test_scuba_rules.py::test_release_relative_dates_read_as_scuba_reads_them",
    "called": "tests/scuba/test_demonstration_labels.py::test_every_exception_is_named_by_a_demonstration",
    "module": "tests/scuba/parity/test_near_misses.py",
    "shared": "tests/scuba/test_release.py::test_the_sample_release_seed_installs",
}


def _load_copy(repo: Path) -> object:
    """``release_root.py`` copied to ``repo/tests/scuba`` and imported from there."""
    target = repo / "tests" / "scuba" / "release_root.py"
    target.parent.mkdir(parents=True)
    shutil.copy(Path(rr.__file__), target)
    spec = importlib.util.spec_from_file_location("release_root_copy", target)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_default_is_beside_the_repository_wherever_it_is(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(rr.VARIABLE, raising=False)
    assert rr.release_root() == REPO.parent / "shared" / "scuba" / "release"
    copy = _load_copy(tmp_path / "elsewhere" / "checkout")
    assert copy.release_root() == tmp_path / "elsewhere" / "shared" / "scuba" / "release"  # type: ignore[attr-defined]
    assert copy.shared_root() == tmp_path / "elsewhere" / "shared" / "scuba"  # type: ignore[attr-defined]


def test_the_variable_names_the_release_and_its_parent_the_shared_folder(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(rr.VARIABLE, str(tmp_path / "SCUBA"))
    assert rr.release_root() == tmp_path / "SCUBA"
    assert rr.shared_root() == tmp_path
    assert rr.missing() == (f"no SCUBA release at {tmp_path / 'SCUBA'} (data/test_zero_shot.json missing); set "
                            f"$PYTEST_CUA_SCUBA_ROOT to SCUBA's release, its shared folder is the parent (default "
                            f"{rr.DEFAULT})")
    (tmp_path / "SCUBA" / "data").mkdir(parents=True)
    (tmp_path / "SCUBA" / "data" / "test_zero_shot.json").write_text("[]")
    assert rr.missing() is None and rr.require_release() == tmp_path / "SCUBA"
    assert "data/test_demo_aug.json missing" in (rr.missing(rr.ZERO_SHOT, rr.DEMO_AUG) or "")


def test_only_one_variable_names_the_release() -> None:
    """No test, script or benchmark reads another variable or an absolute default for the release."""
    offenders = []
    for folder in ("tests", "scripts", "benchmarks", "pytest_cua", "suites"):
        for path in (REPO / folder).rglob("*"):
            if path.suffix not in (".py", ".sh") or path == Path(rr.__file__) or path == Path(__file__):
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            for bad in ('"SCUBA_ROOT"', "'SCUBA_ROOT'", "$SCUBA_ROOT", "/work/shared"):
                if bad in text:
                    offenders.append(f"{path.relative_to(REPO)}: {bad}")
    assert offenders == []


def _inner(node: str, empty: Path, ci: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_XDIST_WORKER", "PYTEST_ADDOPTS")}
    env[rr.VARIABLE] = str(empty)
    if ci is not None:
        env["CI"] = ci
    return subprocess.run([sys.executable, "-m", "pytest", node, "-p", "no:cacheprovider", "-q", "-rsfE"],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("kind", list(NEEDING))
def test_without_the_release_a_test_is_skipped_naming_the_variable(kind: str, tmp_path: Path) -> None:
    (tmp_path / "release").mkdir()
    out = _inner(NEEDING[kind], tmp_path / "release", None)
    assert out.returncode in (0, 5), out.stdout[-3000:] + out.stderr[-3000:]  # 5: a module skipped whole
    assert "skipped" in out.stdout and "passed" not in out.stdout and "failed" not in out.stdout, out.stdout
    assert "$PYTEST_CUA_SCUBA_ROOT" in out.stdout and "no SCUBA" in out.stdout, out.stdout


@pytest.mark.parametrize("kind", list(NEEDING))
def test_without_the_release_under_ci_the_run_fails_with_the_reason(kind: str, tmp_path: Path) -> None:
    (tmp_path / "release").mkdir()
    out = _inner(NEEDING[kind], tmp_path / "release", "true")
    assert out.returncode not in (0, 5), out.stdout[-3000:] + out.stderr[-3000:]
    assert "CI is set and no SCUBA" in out.stdout and "$PYTEST_CUA_SCUBA_ROOT" in out.stdout, out.stdout
    assert "skipped" not in out.stdout and "passed" not in out.stdout, out.stdout
