"""The browser environment: Chromium through Playwright's sync API, one concept per module.

- ``chromium``: finding the Chromium to launch, its flags, the display a headed browser needs;
- ``driver``: the shared Playwright (one sync instance per thread);
- ``connection``: ``BrowserConnection``, the browser itself: launched, detached (--keep-env) or remote
  (--cua-browser-endpoint, reconnected); crashes; closing;
- ``contexts``: ``BrowserContexts``, the fresh context per task: its tabs, dialogs, the kept login session and
  the spare context made in the background;
- ``login``: the login session kept between contexts (``KeptLogin``);
- ``spare``: the spare context made while a task runs;
- ``observation``: ``BrowserObservation``, what the agent sees of the active tab;
- ``environment``: ``BrowserEnvironment``, the ``Environment``: tasks, rollback and residue, actions;
- ``actions``: the table of action handlers (they see the environment as an ``ActingBrowser``);
- ``errors``: ``ActionFailed`` and short error texts;
- ``outline``: element ids and the accessibility outline of every frame, the flattened DOM;
- ``marks``: set-of-marks drawing;
- ``recording``: the trace and the screencasts of a task (``TaskRecording``);
- ``video``: the screencast of a tab and its encoding;
- ``traces``: trace redaction;
- ``options``: the command-line options and ``BrowserOptions``;
- ``provider``: the ``browser`` provider of the ``pytest_cua.environments`` entry-point group.

Each class builds on the one before: ``BrowserConnection`` < ``BrowserContexts`` < ``BrowserObservation`` <
``BrowserEnvironment``; ``actions`` never imports them. The package may import the core modules
(``pytest_cua.actions``, ``observations``, ``redaction``), ``tasks``, ``orgs``, ``envs.base`` and
``envs.marks``; never ``agents``, ``episode``, ``results``, the plugin or the fixtures.

The names other code uses are importable from here.
"""

from __future__ import annotations

from pytest_cua.envs.browser.actions import normalize_key
from pytest_cua.envs.browser.chromium import check_display, find_chromium, launch_args
from pytest_cua.envs.browser.driver import shared_playwright
from pytest_cua.envs.browser.environment import BrowserEnvironment
from pytest_cua.envs.browser.errors import ActionFailed, short_error
from pytest_cua.envs.browser.marks import draw_marks
from pytest_cua.envs.browser.options import BrowserOptionError, BrowserOptions, add_browser_options, parse_viewport
from pytest_cua.envs.browser.outline import render_dom
from pytest_cua.envs.browser.provider import PROVIDER, create
from pytest_cua.envs.browser.traces import redact_zip
from pytest_cua.envs.browser.video import find_ffmpeg

__all__ = ["ActionFailed", "BrowserEnvironment", "BrowserOptionError", "BrowserOptions", "PROVIDER",
           "add_browser_options", "check_display", "create", "draw_marks", "find_chromium", "find_ffmpeg",
           "launch_args", "normalize_key", "parse_viewport", "redact_zip", "render_dom", "shared_playwright",
           "short_error"]
