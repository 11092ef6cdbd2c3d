"""``pytest-cua doctor``: what this machine has for each environment, and how to install what is missing."""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import subprocess
from dataclasses import dataclass
from typing import Any, Callable


@dataclass
class Check:
    name: str
    needed_for: str
    ok: bool
    detail: str
    fix: str = ""


def _module(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


def _run(cmd: list[str], timeout: float = 10) -> tuple[int, str]:
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return 1, str(exc)
    return done.returncode, (done.stdout or done.stderr).strip().splitlines()[0] if (done.stdout or done.stderr) else ""


def check_playwright() -> Check:
    ok = _module("playwright")
    return Check("playwright", "browser suites", ok, "installed" if ok else "missing",
                 "" if ok else "pip install 'pytest-cua[browser]'")


def check_chromium() -> Check:
    from pytest_cua.envs.browser import find_chromium

    path = find_chromium(None)
    if path is None:
        return Check("chromium", "browser suites", False, "no Chromium found",
                     "apt-get install chromium (Playwright's own download is not needed)")
    code, version = _run([path, "--version"])
    return Check("chromium", "browser suites", code == 0, f"{path} {version}")


def check_xvfb() -> Check:
    path = shutil.which("Xvfb")
    return Check("Xvfb", "--headed without a screen", path is not None, path or "missing",
                 "" if path else "apt-get install xvfb; run under xvfb-run")


def check_docker() -> Check:
    if not _module("docker"):
        return Check("docker SDK", "desktop suites", False, "missing", "pip install 'pytest-cua[desktop]'")
    try:
        import docker

        client = docker.from_env(timeout=5)
        version = client.version().get("Version", "?")
        return Check("dockerd", "desktop suites", True, f"engine {version}")
    except Exception as exc:  # noqa: BLE001 - any failure means no usable engine
        return Check("dockerd", "desktop suites", False, f"not reachable ({type(exc).__name__})",
                     "bash scripts/ensure_docker.sh (installs docker.io and starts dockerd)")


def check_allure() -> Check:
    npx = shutil.which("npx")
    if npx is None:
        return Check("allure CLI", "pytest-cua report", False, "npx missing", "apt-get install nodejs npm")
    code, out = _run([npx, "--no-install", "allure", "--version"], timeout=30)
    return Check("allure CLI", "pytest-cua report", code == 0, out if code == 0 else "not installed",
                 "" if code == 0 else "npm install allure")


def check_allure_pytest() -> Check:
    ok = _module("allure_pytest")
    return Check("allure-pytest", "--alluredir", ok, "installed" if ok else "missing",
                 "" if ok else "pip install 'pytest-cua[allure]'")


CHECKS: tuple[Callable[[], Check], ...] = (check_playwright, check_chromium, check_xvfb, check_docker,
                                           check_allure_pytest, check_allure)


def run(args: argparse.Namespace) -> int:
    results = [c() for c in CHECKS]
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
