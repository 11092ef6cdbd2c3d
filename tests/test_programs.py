"""Every external program the project runs is in ``PROGRAMS`` (pytest_cua/cli/doctor.py), and what that table says
installs each one does: ``scripts/install.sh`` (``--docker``), ``scripts/ensure_docker.sh`` on the host, the
image recipes in fixtures/images inside desktop containers.

The programs are found statically: the string at argv[0] of ``subprocess.run`` / ``Popen`` / ``call`` /
``check_call`` / ``check_output`` / ``pexpect.spawn`` and of the project's own argv helpers, and the argument
of ``shutil.which``, in pytest_cua/ and tests/. Names the code builds at run time are listed in ``DYNAMIC``.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from pytest_cua.cli.doctor import ENSURE_DOCKER, IMAGE_BUILDER, INSTALL, MANAGERS, PROGRAMS, Program

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("pytest_cua", "tests")
RUNNERS = {"subprocess.run", "subprocess.Popen", "subprocess.call", "subprocess.check_call",
           "subprocess.check_output", "pexpect.spawn", "shutil.which"}
# the project's helpers whose first argument is an argv list (images._sh, executor._spawn / _run_ok, doctor._run)
ARGV_HELPERS = {"_sh", "_spawn", "_run_ok", "_run"}
# files that run inside desktop containers: the executor and its op modules, copied into each container at creation
CONTAINER_FILES = {p.relative_to(Path(__file__).resolve().parents[1]).as_posix() for p in
                   (Path(__file__).resolve().parents[1] / "pytest_cua" / "envs" / "docker").glob("executor*.py")}

# programs whose names the code builds at run time (a variable at argv[0]), or that only the scripts and
# the README's commands run: (name, in a container) -> where
DYNAMIC: dict[tuple[str, bool], str] = {
    ("chromium", False): "envs/browser/chromium.py find_chromium(): SYSTEM_CHROMIUM, then shutil.which over PATH_NAMES",
    ("ffmpeg", False): "envs/browser/video.py find_ffmpeg(): imageio-ffmpeg's binary first, runs [ffmpeg, ...]",
    ("node", False): "runs the allure CLI and npx (their '#!/usr/bin/env node'); scripts/build_lightning.sh runs rollup",
    ("npm", False): "scripts/build_lightning.sh: npm ci of the Lightning UI's pinned packages",
    ("xvfb-run", False): "the README's and ProvisioningError's 'xvfb-run -a pytest --headed'",
    ("xauth", False): "xvfb-run runs it",
    ("dockerd", False): "scripts/ensure_docker.sh starts it; the docker SDK talks to it",
    ("docker", False): "scripts/ensure_docker.sh: docker info",
}


@dataclass(frozen=True)
class Invocation:
    name: str
    in_container: bool
    where: str  # file:line

    def describe(self) -> str:
        side = "inside desktop containers" if self.in_container else "on the host"
        return f"{self.where} runs {self.name!r} {side}"


def _dotted(node: ast.AST) -> str:
    """``subprocess.run`` for ``subprocess.run(...)``, ``self._sh`` for ``self._sh(...)``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def _program_of(call: ast.Call) -> str | None:
    """The literal program name a call runs, or None when it is built at run time (or not a run at all)."""
    name = _dotted(call.func)
    if name not in RUNNERS and name.rsplit(".", 1)[-1] not in ARGV_HELPERS:
        return None
    first = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg in ("args", "cmd")), None)
    if isinstance(first, (ast.List, ast.Tuple)) and first.elts:
        first = first.elts[0]
    elif name not in ("shutil.which", "pexpect.spawn"):
        return None  # an argv helper or subprocess call given a variable
    if isinstance(first, ast.Constant) and isinstance(first.value, str) and first.value.strip():
        return first.value.split()[0].rsplit("/", 1)[-1]
    return None


def invocations() -> list[Invocation]:
    """Every literal program run found in pytest_cua/ and tests/."""
    found: list[Invocation] = []
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=rel)):
                if isinstance(node, ast.Call):
                    program = _program_of(node)
                    if program is not None:
                        found.append(Invocation(program, rel in CONTAINER_FILES, f"{rel}:{node.lineno}"))
    return sorted(found, key=lambda i: (i.where.split(":")[0], int(i.where.split(":")[1])))


def table_keys() -> set[tuple[str, bool]]:
    return {(p.name, p.in_container) for p in PROGRAMS}


def listed(*args: str, script: str = INSTALL) -> set[tuple[str, str, str]]:
    """What ``SCRIPT --list`` says it installs: (program, manager, package) lines."""
    shell = "sh" if script == ENSURE_DOCKER else "bash"
    done = subprocess.run([shell, script, "--list", *args], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"{script} --list {' '.join(args)} failed: {done.stderr}"
    lines = {tuple(line.split()) for line in done.stdout.splitlines() if line.strip()}
    assert all(len(line) == 3 for line in lines), f"{script} --list printed lines that are not PROGRAM MANAGER PACKAGE"
    return lines  # type: ignore[return-value]


def test_the_scan_finds_the_programs_it_should() -> None:
    """The scanner itself works: it sees the image builder's and the executor's programs."""
    keys = {(i.name, i.in_container) for i in invocations()}
    assert {("debootstrap", False), ("chroot", False), ("tar", False), ("mount", False), ("umount", False),
            ("npx", False), ("Xvfb", False), ("xdotool", True), ("wmctrl", True), ("Xvfb", True)} <= keys


def test_every_program_the_code_runs_is_in_the_table() -> None:
    missing = [i.describe() for i in invocations() if (i.name, i.in_container) not in table_keys()]
    assert not missing, ("programs missing from PROGRAMS in pytest_cua/cli/doctor.py (add each with its package and "
                         "make scripts/install.sh or the image recipe install it):\n  " + "\n  ".join(missing))


def test_every_table_entry_is_run_by_the_code_or_explained() -> None:
    """No stale entry: each program is found by the scan or named in DYNAMIC with where it runs."""
    found = {(i.name, i.in_container) for i in invocations()} | set(DYNAMIC)
    stale = sorted(f"{name} ({'container' if c else 'host'})" for name, c in table_keys() - found)
    assert not stale, f"PROGRAMS lists programs nothing runs: {', '.join(stale)} (remove them or add to DYNAMIC)"


def test_the_preflight_checks_the_image_builders_programs_of_the_table() -> None:
    """The desktop preflight (``envs.docker.machine``) checks exactly the programs the table says the image
    builder needs, and names the same script to start the engine."""
    from pytest_cua.envs.docker import machine

    assert set(machine.BUILDER_PROGRAMS) == {p.name for p in PROGRAMS if p.needed_for == IMAGE_BUILDER}
    assert machine.ENSURE_DOCKER == ENSURE_DOCKER


def test_every_entry_is_well_formed() -> None:
    for p in PROGRAMS:
        assert p.manager in MANAGERS, f"{p.name}: unknown manager {p.manager!r}"
        assert (ROOT / p.installer).is_file(), f"{p.name}: no installer {p.installer}"
        assert p.install_command() and p.needed_for, p.name
        assert not (p.in_container and p.docker), f"{p.name}: a container program is not a --docker host program"


@pytest.mark.parametrize("program", [p for p in PROGRAMS if not p.in_container], ids=lambda p: p.name)
def test_the_scripts_install_every_host_program(program: Program) -> None:
    line = (program.name, program.manager, program.package)
    plain, docker = listed(), listed("--docker")
    if program.installer == ENSURE_DOCKER:
        assert line in listed(script=ENSURE_DOCKER), f"{ENSURE_DOCKER} --list lacks {' '.join(line)}"
        assert line in docker, f"{INSTALL} --docker does not run {ENSURE_DOCKER} for {program.name}"
    elif program.docker:
        assert line in docker and line not in plain, f"{INSTALL} installs {program.name} only with --docker"
    else:
        assert line in plain, f"{INSTALL} --list lacks {' '.join(line)}: it does not install {program.name}"


def test_the_scripts_install_nothing_the_table_lacks() -> None:
    table = {(p.name, p.manager, p.package) for p in PROGRAMS if not p.in_container}
    extra = (listed("--docker") | listed(script=ENSURE_DOCKER)) - table
    assert not extra, f"the scripts install programs PROGRAMS does not list: {sorted(extra)}"


def test_pip_programs_come_with_the_extras_install_sh_installs() -> None:
    """install.sh installs ``-e .[test]``: a pip-provided program's package is in that extra's closure."""
    tomllib = pytest.importorskip("tomllib" if sys.version_info >= (3, 11) else "tomli")
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert 'pip install' in (ROOT / INSTALL).read_text() and '".[test]"' in (ROOT / INSTALL).read_text()

    def closure(extra: str) -> set[str]:
        names: set[str] = set()
        for requirement in extras.get(extra, []):
            if requirement.startswith("pytest-cua["):
                for inner in requirement[len("pytest-cua["):-1].split(","):
                    names |= closure(inner.strip())
            else:
                names.add(requirement.split(">")[0].split("=")[0].split("<")[0].split("[")[0].strip().lower())
        return names

    for p in PROGRAMS:
        if p.manager == "pip":
            assert p.package.lower() in closure("test"), f"{p.package} (for {p.name}) is not in pyproject's test extra"


def _recipe_packages(installer: str) -> set[str]:
    """The Debian packages a recipe installs, its bases' included."""
    recipe = json.loads((ROOT / installer).read_text())
    packages = set(recipe.get("packages", []))
    if recipe.get("base"):
        packages |= _recipe_packages(f"fixtures/images/{recipe['base']}.json")
    return packages


@pytest.mark.parametrize("program", [p for p in PROGRAMS if p.in_container], ids=lambda p: p.name)
def test_the_image_recipes_install_every_container_program(program: Program) -> None:
    assert program.manager == "apt"
    assert program.package in _recipe_packages(program.installer), (
        f"{program.installer} does not install {program.package} (for {program.name})")


def test_doctor_names_every_host_program_with_its_install_command() -> None:
    from pytest_cua.cli import doctor

    checks = doctor.program_checks(find=lambda program: None)  # as on a machine that has none of them
    by_name = {c.name: c for c in checks}
    for p in doctor.host_programs():
        check = by_name[p.name]
        assert not check.ok and check.fix == p.install_command()
        assert p.package in check.fix and ("--docker" in check.fix or not p.docker or p.installer == ENSURE_DOCKER)
