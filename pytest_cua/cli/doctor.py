"""``pytest-cua doctor``: what this machine has for each environment, and how to install what is missing.

``PROGRAMS`` is the one list of the external programs pytest-cua runs, with the package that provides each
and what installs it: on the host ``scripts/install.sh`` (``--docker`` for the desktop image builder) and
``scripts/ensure_docker.sh``; inside desktop containers the image recipes in ``fixtures/images``. The doctor
checks every host program; ``tests/test_programs.py`` checks that the code runs no program this list lacks
and that the scripts and recipes install every one. This module imports only the standard library at load.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import subprocess
from dataclasses import dataclass
from typing import Any, Callable

INSTALL = "scripts/install.sh"
ENSURE_DOCKER = "scripts/ensure_docker.sh"
ENSURE_SF = "scripts/ensure_sf.sh"
BASE_IMAGE = "fixtures/images/cua-desktop-base.json"
IMAGE_BUILDER = "desktop images: pytest-cua image build"  # what the image builder's PROGRAMS are for
MANAGERS = ("apt", "npm", "pip")  # Debian packages, the npm registry, PyPI (a wheel that ships the binary)


@dataclass(frozen=True)
class Program:
    """An external program pytest-cua runs, the package that provides it and what installs that package."""

    name: str  # the executable, as the code runs it
    package: str  # the package that provides it (for npm, with its version range)
    manager: str  # one of MANAGERS
    installer: str  # a script under scripts/ (the host) or an image recipe under fixtures/images/ (a container)
    needed_for: str
    docker: bool = False  # a host program only the desktop suites need: installed by `scripts/install.sh --docker`

    @property
    def in_container(self) -> bool:
        """True for a program that runs inside desktop containers (installed by an image recipe)."""
        return self.installer.startswith("fixtures/images/")

    def install_command(self) -> str:
        """How to install it by hand, and the script (or recipe) that does it."""
        if self.in_container:
            recipe = self.installer.rsplit("/", 1)[-1].removesuffix(".json")
            return f"pytest-cua image build {recipe} (its recipe installs the Debian package {self.package})"
        command = {"apt": f"apt-get install {self.package}", "npm": f"npm install -g {self.package}",
                   "pip": f"pip install {self.package}"}[self.manager]
        script = f"bash {self.installer}" + (" --docker" if self.docker and self.installer == INSTALL else "")
        return f"{command} (or: {script})"


PROGRAMS: tuple[Program, ...] = (
    # the host, always (scripts/install.sh)
    Program("chromium", "chromium", "apt", INSTALL, "browser suites: Debian's Chromium, not Playwright's download"),
    Program("Xvfb", "xvfb", "apt", INSTALL, "--headed without a screen, the headed browser tests"),
    Program("xvfb-run", "xvfb", "apt", INSTALL, "--headed without a screen: xvfb-run -a pytest --headed"),
    Program("xauth", "xauth", "apt", INSTALL, "xvfb-run"),
    Program("ffmpeg", "imageio-ffmpeg", "pip", INSTALL, "--cua-video: the imageio-ffmpeg wheel ships it"),
    Program("node", "nodejs", "apt", INSTALL, "pytest-cua report: Allure 3 runs on Node.js; a checkout builds the "
            "embedded org's Lightning UI with it (scripts/build_lightning.sh)"),
    Program("npx", "npm", "apt", INSTALL, "pytest-cua report: a project-local allure"),
    Program("npm", "npm", "apt", INSTALL, "scripts/build_lightning.sh: the Lightning UI's pinned npm packages"),
    Program("allure", "allure@3", "npm", INSTALL, "pytest-cua report: the allure CLI (Allure 3)"),
    Program("sf", "@salesforce/cli@2.150.6", "npm", ENSURE_SF, "the Salesforce CLI against the embedded org (its "
            "tests, the SCUBA parity harness); ensure_sf.sh brings the Node 22 it needs too"),
    # the host, desktop suites only (scripts/install.sh --docker): the image builder and the engine
    Program("debootstrap", "debootstrap", "apt", INSTALL, IMAGE_BUILDER, docker=True),
    Program("chroot", "coreutils", "apt", INSTALL, IMAGE_BUILDER, docker=True),
    Program("tar", "tar", "apt", INSTALL, IMAGE_BUILDER, docker=True),
    Program("mount", "mount", "apt", INSTALL, IMAGE_BUILDER, docker=True),
    Program("umount", "mount", "apt", INSTALL, IMAGE_BUILDER, docker=True),
    Program("sh", "dash", "apt", INSTALL, "the tests' second Docker daemon: scripts/remote_dockerd.sh", docker=True),
    Program("ssh", "openssh-client", "apt", INSTALL, "ssh:// docker hosts in --cua-docker-hosts (the docker SDK "
            "runs ssh)", docker=True),
    Program("qemu-system-x86_64", "qemu-system-x86", "apt", INSTALL, "--cua-desktop vm: the guests (QEMU with KVM)",
            docker=True),
    Program("qemu-img", "qemu-utils", "apt", INSTALL, "--cua-desktop vm: guest overlays and disks", docker=True),
    Program("mkfs.ext4", "e2fsprogs", "apt", INSTALL, "pytest-cua image build --vm: the guest disk's file system",
            docker=True),
    Program("dockerd", "docker.io", "apt", ENSURE_DOCKER, "desktop suites: the Docker engine", docker=True),
    Program("docker", "docker.io", "apt", ENSURE_DOCKER, "desktop suites: ensure_docker.sh's docker info",
            docker=True),
    # inside desktop containers (the base image's recipe): what the executor runs
    Program("Xvfb", "xvfb", "apt", BASE_IMAGE, "the container's display"),
    Program("xdpyinfo", "x11-utils", "apt", BASE_IMAGE, "the executor: is the display up"),
    Program("openbox", "openbox", "apt", BASE_IMAGE, "the container's window manager"),
    Program("wmctrl", "wmctrl", "apt", BASE_IMAGE, "the executor: windows"),
    Program("xdotool", "xdotool", "apt", BASE_IMAGE, "the executor: typing, window search"),
    Program("dbus-daemon", "dbus", "apt", BASE_IMAGE, "the executor: the session bus of the accessibility tree"),
)

# where root's programs live when PATH lacks the sbin folders (a non-root user's PATH)
_SBIN = "/usr/local/sbin:/usr/sbin:/sbin"


@dataclass
class Check:
    name: str
    needed_for: str
    ok: bool
    detail: str
    fix: str = ""


def host_programs() -> tuple[Program, ...]:
    """The programs pytest-cua runs on this machine (not inside containers)."""
    return tuple(p for p in PROGRAMS if not p.in_container)


def locate(program: Program) -> str | None:
    """Where ``program`` is on this machine, or None. Chromium, ffmpeg and Allure are found as the code that
    runs them finds them (a system Chromium, imageio-ffmpeg's binary, a project-local Allure)."""
    finder = _FINDERS.get(program.name)
    if finder is not None:
        return finder()
    return shutil.which(program.name) or shutil.which(program.name, path=_SBIN)


def _find_chromium() -> str | None:
    try:
        from pytest_cua.envs.browser import find_chromium

        return find_chromium(None)
    except Exception:  # noqa: BLE001 - none found (ProvisioningError), or the browser extra is missing
        return shutil.which("chromium")


def _find_ffmpeg() -> str | None:
    try:
        from pytest_cua.envs.browser import find_ffmpeg

        return find_ffmpeg()
    except ImportError:
        return shutil.which("ffmpeg")


def _find_allure() -> str | None:
    from pytest_cua.results.cli import find_allure

    command = find_allure()
    return " ".join(command) if command else None


def _find_sf() -> str | None:
    from pytest_cua.testing.sfcli import find_sf

    found = find_sf()
    return str(found) if found else None


_FINDERS: dict[str, Callable[[], str | None]] = {"chromium": _find_chromium, "ffmpeg": _find_ffmpeg,
                                                 "allure": _find_allure, "sf": _find_sf}


def program_check(program: Program, find: Callable[[Program], str | None] = locate) -> Check:
    """One host program: found (with Chromium's version) or missing with its install command."""
    needed_for = program.needed_for
    path = find(program)
    if path is None:
        return Check(program.name, needed_for, False, "not found", program.install_command())
    detail = path
    if program.name == "chromium":
        code, version = _run([path, "--version"])
        detail = f"{path} {version}" if code == 0 else f"{path} (--version failed: {version})"
        return Check(program.name, needed_for, code == 0, detail, "" if code == 0 else program.install_command())
    return Check(program.name, needed_for, True, detail)


def program_checks(find: Callable[[Program], str | None] = locate) -> list[Check]:
    """A check per host program of ``PROGRAMS``."""
    return [program_check(p, find) for p in host_programs()]


def _module(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


def _run(cmd: list[str], timeout: float = 10) -> tuple[int, str]:
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return 1, str(exc)
    text = (done.stdout or done.stderr).strip()
    return done.returncode, text.splitlines()[0] if text else ""


def check_playwright() -> Check:
    ok = _module("playwright")
    return Check("playwright", "browser suites", ok, "installed" if ok else "missing",
                 "" if ok else "pip install 'pytest-cua[browser]' (or: bash scripts/install.sh)")


def check_docker() -> Check:
    from pytest_cua.envs.docker.machine import engine

    found = engine()
    return Check(found.what, "desktop suites", found.ok, found.detail, found.fix)


def check_allure_pytest() -> Check:
    ok = _module("allure_pytest")
    return Check("allure-pytest", "--alluredir", ok, "installed" if ok else "missing",
                 "" if ok else "pip install 'pytest-cua[allure]' (or: bash scripts/install.sh)")


def check_model_sdks() -> Check:
    """The vendor SDKs of the model agents, and which API key variables are set (names only, never values)."""
    import os

    missing = [m for m in ("openai", "anthropic") if not _module(m)]
    keys = [k for k in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
                        "OPENAI_COMPATIBLE_API_KEY") if os.environ.get(k)]
    detail = "installed; keys set: " + (", ".join(keys) if keys else "none (replay with --cua-model-replay, "
                                                                          "or a local server: --cua-model-url)")
    return Check("openai, anthropic", "model agents (--agent gpt-5.5, claude-sonnet-5, ...)", not missing,
                 detail if not missing else f"missing: {', '.join(missing)}",
                 "" if not missing else "pip install 'pytest-cua[models]' (or: bash scripts/install.sh)")


def check_lightning_assets() -> Check:
    """The embedded org's Lightning UI is built (a wheel carries it; a checkout builds it with Node)."""
    from pytest_cua.orgs.localorg.ui import assets

    try:
        stamp = assets.build_stamp()
    except assets.AssetsMissing:
        return Check("Lightning UI", "the embedded org's pages", False, f"not built ({assets.DIST})",
                     f"bash {assets.BUILD_COMMAND} (scripts/install.sh runs it)")
    return Check("Lightning UI", "the embedded org's pages", True, f"built (stamp {stamp})")


def check_vm() -> list[Check]:
    """The vm desktops (``--cua-desktop vm``): KVM, QEMU and the base recipe's guest disk."""
    from pytest_cua.envs.vm import preflight

    needed_for = "--cua-desktop vm"
    return [Check(name, needed_for, found.ok, found.detail, found.fix) for name, found in
            (("KVM", preflight.kvm()), ("QEMU", preflight.qemu()), ("guest disk", preflight.guest_image()))]


CHECKS: tuple[Callable[[], Check], ...] = (check_playwright, check_allure_pytest, check_docker, check_model_sdks,
                                           check_lightning_assets)


def run(args: argparse.Namespace) -> int:
    """Print one line per check (and how to fix what is missing); 1 when anything is missing."""
    results = [c() for c in CHECKS] + check_vm() + program_checks()
    width = max(len(r.name) for r in results)
    for r in results:
        mark = "ok     " if r.ok else "MISSING"
        line = f"{mark} {r.name.ljust(width)}  {r.detail}  (for {r.needed_for})"
        if r.fix:
            line += f"\n        fix: {r.fix}"
        print(line)
    return 0 if all(r.ok for r in results) else 1


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("doctor", help="check what this machine has for each environment")
    parser.set_defaults(func=run)
