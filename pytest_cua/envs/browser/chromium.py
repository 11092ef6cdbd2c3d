"""Finding the Chromium to launch, its launch flags, and the display a headed browser needs."""

from __future__ import annotations

import os
import shutil
from typing import TYPE_CHECKING

from pytest_cua.envs.base import ProvisioningError
from pytest_cua.envs.browser.options import HEADED_WITHOUT_DISPLAY, BrowserOptions

if TYPE_CHECKING:
    from playwright.sync_api import Playwright

QUIET_FLAGS = ("--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
               "--disable-component-update", "--disable-sync")
"""Launch flags for a machine without outside network (Chromium otherwise floods refused connections)."""

SYSTEM_CHROMIUM = ("/usr/lib/chromium/chromium", "/usr/bin/chromium", "/usr/bin/chromium-browser",
                   "/usr/bin/google-chrome", "/usr/bin/google-chrome-stable", "/snap/bin/chromium")
PATH_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")

INSTALL_HINT = ("no Chromium found for the browser environment: install one with 'apt-get install chromium' "
                "(Debian/Ubuntu) or 'playwright install chromium', or point --cua-browser-path / "
                "PYTEST_CUA_CHROMIUM at a Chromium executable")


def find_chromium(playwright: "Playwright | None" = None, explicit: str | None = None) -> str | None:
    """The Chromium to launch: ``explicit``, Playwright's own (returns None: launch without a path), the
    system Chromium or one on PATH. Raises ProvisioningError with what to install when there is none."""
    if explicit:
        if not os.path.exists(explicit):
            raise ProvisioningError(f"--cua-browser-path / PYTEST_CUA_CHROMIUM: {explicit!r} does not exist")
        return explicit
    if playwright is not None:
        try:
            own = playwright.chromium.executable_path
        except Exception:  # noqa: BLE001 - a Playwright without a registry entry
            own = ""
        if own and os.path.exists(own):
            return None
    for path in SYSTEM_CHROMIUM:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    for name in PATH_NAMES:
        found = shutil.which(name)
        if found:
            return found
    raise ProvisioningError(INSTALL_HINT)


def launch_args(options: BrowserOptions) -> list[str]:
    args = list(QUIET_FLAGS)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--no-sandbox")
    args.extend(options.extra_args)
    return args


def check_display(options: BrowserOptions) -> None:
    if not options.headless and not os.environ.get("DISPLAY"):
        raise ProvisioningError(HEADED_WITHOUT_DISPLAY)

