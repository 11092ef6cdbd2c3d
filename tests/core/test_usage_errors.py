"""Settings that can be checked before anything runs are usage errors: one message, no task provisioned."""

from __future__ import annotations

import pytest

from .conftest import task


@pytest.mark.parametrize("args, expected", [
    (["--headed"], "--headed needs a display but DISPLAY is not set: run under Xvfb, e.g. 'xvfb-run -a pytest "
                   "--headed ...', or drop --headed"),
    (["--slowmo", "-5"], "--slowmo: must not be negative, got -5"),
    (["--cua-viewport", "huge"], "--cua-viewport: must be WIDTHxHEIGHT like 1280x800, got 'huge'"),
    (["--cua-action-timeout", "0"], "--cua-action-timeout: must be positive, got 0"),
])
def test_browser_settings_are_usage_errors_before_anything_runs(pytester, kv_suite, monkeypatch, args, expected):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.setenv("KV_LOG", str(pytester.path / "kv.log"))
    kv_suite("t.json", [task("u1"), task("u2")])
    result = pytester.runpytest_subprocess("--agent", "oracle", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert f"ERROR: {expected}" in err
    assert err.count("ERROR:") == 1 and "Traceback" not in err
    assert not (pytester.path / "kv.log").exists()  # nothing was provisioned


def test_headed_with_a_display_is_accepted(pytester, kv_suite, monkeypatch):
    monkeypatch.setenv("DISPLAY", ":99")  # only checked for presence here: the kv suite opens no browser
    kv_suite("t.json", [task("u1")])
    pytester.runpytest_subprocess("--agent", "oracle", "--headed").assert_outcomes(passed=1)
