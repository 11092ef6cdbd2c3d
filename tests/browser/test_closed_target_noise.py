"""When Chromium goes away, asyncio's "Future exception was never retrieved" for Playwright's own unawaited
calls is not printed after the run's report; any other unretrieved exception still is."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = textwrap.dedent("""
    import asyncio, gc, sys
    from playwright._impl._errors import TargetClosedError
    from pytest_cua.envs.browser.driver import quiet_closed_targets

    if sys.argv[1] == "quiet":
        quiet_closed_targets()

    async def main():
        loop = asyncio.get_running_loop()
        for exc in (TargetClosedError(), ValueError("a bug of ours")):
            future = loop.create_future()
            future.set_exception(exc)
            del future  # never awaited: asyncio reports it when the future is collected
        gc.collect()

    asyncio.run(main())
""")


@pytest.mark.parametrize("mode", ["loud", "quiet"])
def test_only_playwrights_closed_target_futures_are_quiet(mode: str) -> None:
    pytest.importorskip("playwright")
    proc = subprocess.run([sys.executable, "-c", SCRIPT, mode], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    assert "ValueError: a bug of ours" in proc.stderr
    assert proc.stderr.count("Future exception was never retrieved") == (2 if mode == "loud" else 1), proc.stderr
    assert ("TargetClosedError" in proc.stderr) == (mode == "loud")
