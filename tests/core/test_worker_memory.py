"""xdist workers start with glibc's allocator tuned for long model runs (pytest_cua.plugin.WORKER_MALLOC), unless
the user set those variables; a run without xdist changes nothing."""

from __future__ import annotations

import pytest

from pytest_cua.plugin import WORKER_MALLOC

pytest_plugins = ["pytester"]

PROBE = """
import json, os, pathlib
def test_probe():
    seen = {k: os.environ.get(k) for k in %r}
    pathlib.Path(__file__).with_name("seen.json").write_text(json.dumps(seen))
""" % (sorted(WORKER_MALLOC),)


def _seen(pytester: pytest.Pytester) -> dict[str, str | None]:
    import json

    return json.loads((pytester.path / "seen.json").read_text())  # type: ignore[no-any-return]


def test_workers_get_the_allocator_settings(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in WORKER_MALLOC:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")  # the user's own value wins
    pytester.makepyfile(test_probe=PROBE)
    result = pytester.runpytest_subprocess("-n", "1", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert _seen(pytester) == {**WORKER_MALLOC, "MALLOC_ARENA_MAX": "4"}


def test_without_xdist_nothing_is_set(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in WORKER_MALLOC:
        monkeypatch.delenv(name, raising=False)
    pytester.makepyfile(test_probe=PROBE)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist")
    result.assert_outcomes(passed=1)
    assert _seen(pytester) == {name: None for name in WORKER_MALLOC}
