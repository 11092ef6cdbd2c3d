"""Packaging: every third-party module the code imports is a declared dependency, the wheel carries the package's
data (``py.typed``, the prompts, the price table, the repository's ``fixtures/`` as ``pytest_cua._fixtures``),
and a wheel installed into a clean virtual environment serves the org with no checkout and runs the SCUBA suite
from a copy of ``suites/``.

The wheel is built once per session (shared by the xdist workers) from a copy of the sources in a temporary
folder, so the checkout gets no ``build/``; the clean environments (``slow``, about a minute with pip's cache
warm) install it with ``[all]`` from the package index, as a user would.
"""

from __future__ import annotations

import ast
import fcntl
import json
import os
import re
import select
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib.metadata import packages_distributions
from pathlib import Path
from typing import Any

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("pytest_cua", "suites")  # the package, and the suites a checkout runs on an installed package
OWN = {"pytest_cua", "suites"}
# modules that come from a checkout put on sys.path at run time, never from a distribution: where they come from
FROM_CHECKOUT = {"scuba": "SCUBA's release (--scuba-root), on sys.path in pytest_cua.testing.scuba_parity's worker",
                 "make_fixtures": "fixtures/prosoft/engineering/make_fixtures.py, on sys.path in the task generator "
                                  "suites/prosoft/make/engineering.py (a checkout-only script)"}

# A module imported only inside a function, under TYPE_CHECKING or in a try that catches ImportError may come
# from an extra instead of the core dependencies: the extra it comes from.
EXTRAS: dict[str, str] = {
    "playwright": "browser",
    "imageio_ffmpeg": "browser",
    "docker": "desktop",
    "openpyxl": "desktop",  # the ProSoft evaluators
    "yaml": "desktop",  # --cua-human FILE in YAML (pytest_cua.episode.human; JSON needs nothing)
    "lxml": "desktop",
    "openai": "models",
    "anthropic": "models",
    "httpx": "models",
    "allure": "allure",
    "allure_commons": "allure",
    "matplotlib": "report",  # pytest-cua report --compare --html
    "cv2": "desktop",  # the vision marks of windows without a tree (--cua-observe som+vision)
    "ezdxf": "desktop",  # the ProSoft LibreCAD evaluators
    "scipy": "generators",  # the ProSoft task generators' expected statistics
}
# files that never run on the host: the executor and its op modules, copied into each desktop container at its
# creation; the image recipes install what they import
CONTAINER_FILES = {p.relative_to(Path(__file__).resolve().parents[1]).as_posix() for p in
                   (Path(__file__).resolve().parents[1] / "pytest_cua" / "envs" / "docker").glob("executor*.py")}
# calls that import the module named by their first argument
DYNAMIC_IMPORTS = {"import_module", "import_sdk", "__import__"}

SCUBA_TASKS = "create_lead_1 or freeze_user_1"


# --------------------------------------------------------------------------------------------- imports


@dataclass(frozen=True)
class Import:
    module: str  # the top-level name
    where: str  # file:line
    deferred: bool  # inside a function, under TYPE_CHECKING or guarded by an ImportError handler


def _guards_import_error(node: ast.Try) -> bool:
    names: list[str] = []
    for handler in node.handlers:
        if handler.type is None:
            return True
        kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        names += [k.id if isinstance(k, ast.Name) else getattr(k, "attr", "") for k in kinds]
    return bool({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"} & set(names))


def _imports_of(path: Path) -> Iterator[Import]:
    rel = path.relative_to(ROOT).as_posix()
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=rel)
    # a script's own folder is on sys.path when it runs: the suites' task generators import their neighbours
    beside = set() if rel.startswith("pytest_cua/") else \
        {p.stem for p in path.parent.glob("*.py")} | {p.name for p in path.parent.iterdir() if p.is_dir()}

    def visit(node: ast.AST, deferred: bool) -> Iterator[Import]:
        for child in ast.iter_child_nodes(node):
            names: list[str] = []
            if isinstance(child, ast.Import):
                names = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
                names = [child.module]
            elif isinstance(child, ast.Call) and child.args and isinstance(child.args[0], ast.Constant) \
                    and isinstance(child.args[0].value, str) \
                    and getattr(child.func, "attr", getattr(child.func, "id", None)) in DYNAMIC_IMPORTS:
                names = [child.args[0].value]
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in OWN and top not in FROM_CHECKOUT \
                        and top not in beside:
                    yield Import(top, f"{rel}:{getattr(child, 'lineno', 0)}", deferred)
            inner = deferred or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) \
                or (isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test))
            if isinstance(child, ast.Try) and _guards_import_error(child):
                for statement in child.body:
                    yield from visit(ast.Module(body=[statement], type_ignores=[]), True)
                for handler in child.handlers:
                    yield from visit(handler, inner)
                for statement in (*child.orelse, *child.finalbody):
                    yield from visit(ast.Module(body=[statement], type_ignores=[]), inner)
                continue
            yield from visit(child, inner)

    yield from visit(tree, False)


def imports() -> list[Import]:
    """Every third-party import of pytest_cua/ and suites/ (the container-only executor aside)."""
    found: list[Import] = []
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "__pycache__" not in path.parts and path.relative_to(ROOT).as_posix() not in CONTAINER_FILES:
                found += _imports_of(path)
    return found


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_name(spec: str) -> tuple[str, list[str]]:
    """``pytest-cua[browser,models]`` -> ("pytest-cua", ["browser", "models"]); ``lark>=1.1`` -> ("lark", [])."""
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?", spec)
    assert match, f"pyproject: cannot read the requirement {spec!r}"
    return _normal(match.group(1)), [e.strip() for e in (match.group(2) or "").split(",") if e.strip()]


def declared() -> tuple[set[str], dict[str, set[str]]]:
    """pyproject's core dependencies and each extra's distributions (an extra naming pytest-cua's extras, as
    ``all`` does, holds theirs)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    core = {_requirement_name(spec)[0] for spec in project["dependencies"]}
    raw = project.get("optional-dependencies", {})

    def expand(extra: str, seen: tuple[str, ...] = ()) -> set[str]:
        out: set[str] = set()
        for spec in raw[extra]:
            name, extras = _requirement_name(spec)
            if name == _normal(project["name"]):
                for inner in extras:
                    assert inner in raw and inner not in seen, f"pyproject: extra {extra!r} names {inner!r}"
                    out |= expand(inner, seen + (extra,))
            else:
                out.add(name)
        return out

    return core, {extra: expand(extra) for extra in raw}


def test_every_imported_module_is_a_declared_dependency() -> None:
    core, extras = declared()
    distributions = {module: {_normal(d) for d in dists} for module, dists in packages_distributions().items()}
    problems = []
    for imp in imports():
        dists = distributions.get(imp.module)
        if not dists:
            problems.append(f"{imp.where}: imports {imp.module!r}, which no installed distribution provides "
                            f"(declare the distribution and install it)")
            continue
        if dists & core:
            continue
        shown = ", ".join(sorted(dists))
        if not imp.deferred:
            problems.append(f"{imp.where}: imports {imp.module!r} ({shown}) at module level, and it is not in "
                            f"[project] dependencies")
        elif imp.module not in EXTRAS:
            problems.append(f"{imp.where}: imports {imp.module!r} ({shown}), which is not in [project] dependencies "
                            f"(declare it, or put it in an extra and name that extra in EXTRAS)")
        elif not dists & extras.get(EXTRAS[imp.module], set()):
            problems.append(f"{imp.where}: imports {imp.module!r} ({shown}), which the extra "
                            f"{EXTRAS[imp.module]!r} does not declare")
    assert not problems, "undeclared dependencies:\n  " + "\n  ".join(problems)


def test_the_extras_table_is_current() -> None:
    """Each EXTRAS entry is imported somewhere, names an extra of pyproject, and that extra is part of ``all``."""
    _, extras = declared()
    imported = {imp.module for imp in imports()}
    assert not set(EXTRAS) - imported, f"EXTRAS lists modules nothing imports: {sorted(set(EXTRAS) - imported)}"
    for module, extra in sorted(EXTRAS.items()):
        assert extra in extras, f"EXTRAS: {module!r} names {extra!r}, which is not an extra of pyproject"
        assert extras[extra] <= extras["all"], f"extra {extra!r} is not part of 'all'"


def test_the_scan_sees_module_level_and_deferred_imports() -> None:
    """The scanner itself: Werkzeug at module level, Playwright in a function, the SDKs through import_sdk."""
    seen = {(imp.module, imp.where.split(":")[0], imp.deferred) for imp in imports()}
    assert ("werkzeug", "pytest_cua/orgs/localorg/app.py", False) in seen
    assert any(m == "playwright" and w.startswith("pytest_cua/envs/") and d for m, w, d in seen)
    assert not any(m == "playwright" and not d for m, _, d in seen)
    assert ("openai", "pytest_cua/agents/models/adapters/base.py", True) in seen  # openai_client()
    assert not any(m == "pyautogui" for m, _, _ in seen), "the container-only executor is scanned"


# ------------------------------------------------------------------------------------------------ wheel


def _clean_env() -> dict[str, str]:
    """The environment of a user's shell: no PYTHONPATH, no pytest or pytest-cua settings of this run."""
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("PYTHON", "PYTEST")) and k not in ("VIRTUAL_ENV", "COV_CORE_SOURCE")}


def _run(argv: list[str], *, cwd: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, cwd=cwd, env=_clean_env(), capture_output=True, text=True, timeout=timeout,
                          check=False)
    assert done.returncode == 0, (f"{' '.join(argv)} exited {done.returncode}\n--- stdout\n{done.stdout[-4000:]}"
                                  f"\n--- stderr\n{done.stderr[-4000:]}")
    return done


def _once(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]) -> Path:
    """A folder that ``build`` fills once per test session, also under xdist (its workers share it, one lock)."""
    base = factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the session's folder, shared by its workers
    folder = base / f"packaging-{name}"
    with open(base / f"packaging-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / ".done").exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            build(folder)
            (folder / ".done").write_text("")
    return folder


def _copy_sources(dest: Path) -> Path:
    """What the build reads (pyproject.toml, README.md, pytest_cua/, fixtures/), without caches or egg-info."""
    dest.mkdir(parents=True)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, dest / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in ("pytest_cua", "fixtures"):
        shutil.copytree(ROOT / name, dest / name, ignore=ignore)
    return dest


def _build_wheel(folder: Path) -> None:
    src = _copy_sources(folder / "src")
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", str(src), "-w", str(folder / "dist")],
         cwd=folder, timeout=600)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of the working tree (``pip wheel --no-deps``), built once per session."""
    (path,) = (_once(tmp_path_factory, "wheel", _build_wheel) / "dist").glob("pytest_cua-*.whl")
    return path


def _data_files() -> list[str]:
    """The files of fixtures/ that the package needs (its generator script aside)."""
    out = []
    for path in sorted((ROOT / "fixtures").rglob("*")):
        rel = path.relative_to(ROOT / "fixtures").as_posix()
        if path.is_file() and "__pycache__" not in path.parts and (rel == "__init__.py" or path.suffix != ".py"):
            out.append(rel)
    return out


def test_the_wheel_holds_the_package_data(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    wanted = {"pytest_cua/py.typed", "pytest_cua/agents/models/prices.json"}
    wanted |= {f"pytest_cua/agents/prompts/{p.name}" for p in (ROOT / "pytest_cua/agents/prompts").glob("*.md")}
    wanted |= {f"pytest_cua/_fixtures/{rel}" for rel in _data_files()}
    assert {"pytest_cua/_fixtures/localorg/schema/Account.json", "pytest_cua/_fixtures/localorg/seed/User.json",
            "pytest_cua/_fixtures/images/cua-desktop-base.json",
            "pytest_cua/_fixtures/prosoft/budget.xlsx"} <= wanted  # the lists above are not empty
    missing = sorted(wanted - names)
    assert not missing, (f"{wheel.name} lacks package data (extend [tool.setuptools.package-data] in "
                         f"pyproject.toml): {', '.join(missing)}")


def test_the_wheel_holds_every_module_and_nothing_else(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "pytest_cua").rglob("*.py")
               if "__pycache__" not in p.parts}
    missing = sorted(modules - names)
    assert not missing, (f"{wheel.name} lacks modules (a new subpackage goes into [tool.setuptools] packages in "
                         f"pyproject.toml): {', '.join(missing)}")
    stray = sorted(n for n in names if not n.startswith(("pytest_cua/", "pytest_cua-")))
    assert not stray, f"{wheel.name} holds files outside the package: {', '.join(stray)}"
    assert "pytest_cua/_fixtures/prosoft/make_fixtures.py" not in names


# ------------------------------------------------------------------------------------ clean environments

PROBE = """
import importlib.util, json, sys
from pytest_cua.package_data import fixtures_dir
from pytest_cua.envs.docker.recipes import load_recipe
recipe = load_recipe("cua-desktop-office")
print(json.dumps({"fixtures": str(fixtures_dir()), "spec": importlib.util.find_spec("pytest_cua._fixtures").origin,
                  "recipe_hash": recipe.recipe_hash(),
                  "recipe_files": [str(f.src) for r in recipe.chain() for f in r.files]}))
"""


def _probe(python: Path, cwd: Path) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(_run([str(python), "-c", PROBE], cwd=cwd, timeout=60).stdout)
    return found


def _install_wheel(wheel: Path) -> Callable[[Path], None]:
    def build(folder: Path) -> None:
        _run([sys.executable, "-m", "venv", str(folder / "venv")], cwd=folder, timeout=120)
        # --no-compile: no byte-compiling of every module of the extras (scipy, matplotlib, OpenCV...) at
        # install; what the tests import is compiled when imported
        _run([str(folder / "venv" / "bin" / "python"), "-m", "pip", "install", "-q", "--no-compile",
              f"{wheel}[all]"], cwd=folder, timeout=900)
    return build


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clean virtual environment with the wheel and its ``[all]`` extras from the package index."""
    return _once(tmp_path_factory, "venv", _install_wheel(wheel)) / "venv"


def _checkout_recipe_hash() -> str:
    from pytest_cua.envs.docker.recipes import load_recipe

    return load_recipe(ROOT / "fixtures" / "images" / "cua-desktop-office.json").recipe_hash()


@pytest.mark.slow
def test_org_serve_from_the_wheel_with_no_checkout(venv: Path, tmp_path: Path) -> None:
    """``pytest-cua org serve`` in an empty folder prints its credentials, and the seeded org answers."""
    import requests

    empty = tmp_path / "empty"
    empty.mkdir()
    probe = _probe(venv / "bin" / "python", empty)
    site = str(venv / "lib")
    assert str(probe["fixtures"]).startswith(site) and str(probe["spec"]).startswith(site), probe
    # the recipes find the executor in the installed package, and hash as in the checkout (images are reused)
    assert all(str(f).startswith(site) for f in probe["recipe_files"]), probe
    assert probe["recipe_hash"] == _checkout_recipe_hash()

    stderr = (tmp_path / "serve.stderr").open("w")
    proc = subprocess.Popen([str(venv / "bin" / "pytest-cua"), "org", "serve", "--data-dir", str(tmp_path / "data")],
                            cwd=empty, env=_clean_env(), stdout=subprocess.PIPE, stderr=stderr, text=True)
    assert proc.stdout is not None
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        assert ready, f"no credentials within 60 s: {(tmp_path / 'serve.stderr').read_text()[-2000:]}"
        line = proc.stdout.readline()
        assert line, f"org serve exited {proc.wait(10)}: {(tmp_path / 'serve.stderr').read_text()[-2000:]}"
        creds = json.loads(line)
        assert {"instance_url", "client_id", "client_secret", "username", "password", "ca_path"} <= set(creds)
        session = requests.Session()
        session.trust_env = False
        session.verify = creds["ca_path"]
        token = session.post(f"{creds['instance_url']}/services/oauth2/token", timeout=30, data={
            "grant_type": "password", "client_id": creds["client_id"], "client_secret": creds["client_secret"],
            "username": creds["username"], "password": creds["password"]})
        assert token.status_code == 200, token.text
        query = session.get(f"{creds['instance_url']}/services/data/v59.0/query", timeout=30,
                            params={"q": "SELECT Id FROM Account"},
                            headers={"Authorization": f"Bearer {token.json()['access_token']}"})
        assert query.status_code == 200 and query.json()["totalSize"] > 0, query.text
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        stderr.close()


@pytest.mark.slow
@pytest.mark.browser
def test_scuba_oracle_from_a_copy_of_the_suites_on_the_wheel(venv: Path, tmp_path: Path) -> None:
    """``pytest suites/scuba --agent oracle`` from a folder holding only suites/: pytest_cua comes from the wheel
    (the whole suite by hand: 135 passed; here two tasks, to keep CI short)."""
    run = tmp_path / "run"
    shutil.copytree(ROOT / "suites", run / "suites", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    python = venv / "bin" / "python"
    where = _run([str(python), "-c", "import pytest_cua; print(pytest_cua.__file__)"], cwd=run, timeout=60)
    assert where.stdout.strip().startswith(str(venv)), where.stdout
    done = _run([str(python), "-m", "pytest", "suites/scuba", "--agent", "oracle", "-k", SCUBA_TASKS,
                 "-p", "no:cacheprovider", "-q"], cwd=run, timeout=600)
    assert re.search(r"\b2 passed\b", done.stdout), done.stdout[-3000:]
    summary = json.loads((run / "reports" / "summary.json").read_text())
    assert summary["totals"]["passed"] == 2 and summary["totals"]["tasks"] == 2, summary["totals"]
    assert sorted(t["id"] for t in summary["tasks"]) == ["create_lead_1", "freeze_user_1"]


@pytest.mark.slow
def test_an_editable_install_reads_the_checkout_fixtures(tmp_path: Path) -> None:
    """``pip install -e``: the package-dir mapping makes ``pytest_cua._fixtures`` the checkout's fixtures/."""
    src = _copy_sources(tmp_path / "src")
    _run([sys.executable, "-m", "venv", str(tmp_path / "venv")], cwd=tmp_path, timeout=120)
    python = tmp_path / "venv" / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "-q", "--no-deps", "-e", str(src)], cwd=tmp_path, timeout=600)
    probe = _probe(python, tmp_path)
    assert probe["spec"] == str(src / "fixtures" / "__init__.py"), probe
    assert probe["fixtures"] == str(src / "fixtures"), probe
    assert probe["recipe_files"][0] == str(src / "fixtures" / "images" / "files" / "libreoffice" /
                                           "registrymodifications.xcu"), probe
    assert probe["recipe_hash"] == _checkout_recipe_hash()


def test_the_environment_variables_point_at_another_copy(tmp_path: Path) -> None:
    """``PYTEST_CUA_LOCALORG_FIXTURES`` and ``PYTEST_CUA_RECIPES`` win over the package's data."""
    code = ("import json; from pytest_cua.orgs.localorg.schema import default_repo_fixtures; "
            "from pytest_cua.envs.docker.recipes import DEFAULT_RECIPE_DIR; "
            "print(json.dumps([str(default_repo_fixtures()), str(DEFAULT_RECIPE_DIR)]))")
    env = {**os.environ, "PYTEST_CUA_LOCALORG_FIXTURES": str(tmp_path / "org"),
           "PYTEST_CUA_RECIPES": str(tmp_path / "images")}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [str(tmp_path / "org"), str(tmp_path / "images")]
    env = {k: v for k, v in env.items() if not k.startswith("PYTEST_CUA_")}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [str(ROOT / "fixtures" / "localorg"), str(ROOT / "fixtures" / "images")]
