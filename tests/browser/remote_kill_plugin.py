"""Inner-run plugin of the remote-browser tests (``-p remote_kill_plugin``): when the task named by
``CUA_KILL_TASK`` makes its first observation, the browser server whose process group is ``CUA_KILL_PGID``
is killed (SIGKILL) first, so the connection drops in the middle of that task."""

from __future__ import annotations

import os
import signal
import time

from pytest_cua.envs.browser.environment import BrowserEnvironment

_observe = BrowserEnvironment.observe
_killed: list[int] = []


def _observe_after_kill(self, kinds=None):  # type: ignore[no-untyped-def]
    if self._task_id == os.environ.get("CUA_KILL_TASK") and not _killed:
        pgid = int(os.environ["CUA_KILL_PGID"])
        _killed.append(pgid)
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        time.sleep(0.5)  # the server's socket closes; the observation's first call sees the drop
    return _observe(self, kinds)


BrowserEnvironment.observe = _observe_after_kill  # type: ignore[method-assign]
