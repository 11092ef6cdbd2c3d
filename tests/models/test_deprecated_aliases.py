"""Deprecated aliases run until the vendor's shutdown date: ``--agent o3`` (gpt-5, gpt-4.1, claude-opus-4-5) with
the shutdown date ahead resolves and runs, with one warning at the start of the session (from the xdist
controller only, not once per worker) naming the date and the replacement, and every record carries the
deprecation; from the shutdown date on the alias is a usage error (exit 4) naming both.

"Today" is injected with ``PYTEST_CUA_TODAY`` (inner runs) or ``resolve(..., today=)``. The dates are checked
against the installed SDKs: OpenAI's ``ChatModel`` "Deprecated values" note, Anthropic's ``DEPRECATED_MODELS``.
The inner runs call the fake vendor server (``pytest_cua.testing.fake_models``) over loopback with the
deprecated model id, through the vendor SDK, on a small key-value suite (``tests/core/conftest.py``).
"""

from __future__ import annotations

import datetime as dt
import inspect
import json
import re
from typing import Iterator

import pytest

from pytest_cua.agents.deprecation import TODAY_ENV, today
from pytest_cua.agents.models.aliases import ANTHROPIC_MODELS, DEPRECATED, OPENAI_MODELS, RETIRED
from pytest_cua.agents.models.settings import ModelSettings
from pytest_cua.agents.registry import AgentRegistry, UnknownAgent
from pytest_cua.testing.fake_models import FakeCall, FakeModelServer, FakeReply, FakeRequest
from tests.core.conftest import KV_SUITE

KEY = "sk-test-deprecated-aliases-0123456789"
#: the aliases whose model the installed SDK marks deprecated with a shutdown date (the issue's list)
DATED = ("o3", "gpt-5", "gpt-4.1", "claude-opus-4-5")
MONTHS = ("january february march april may june july august september october november december").split()


def day_before(alias: str) -> dt.date:
    return DEPRECATED[alias].shutdown - dt.timedelta(days=5)


def day_after(alias: str) -> dt.date:
    return DEPRECATED[alias].shutdown + dt.timedelta(days=1)


# -- the dates, as the installed SDKs give them --------------------------------------------------------------

def openai_shutdowns() -> dict[str, dt.date]:
    """Model -> announced shutdown date, from the "Deprecated values" note of the installed openai SDK."""
    from openai.types.shared import chat_model

    _, _, note = inspect.getsource(chat_model).partition("Deprecated values")
    out: dict[str, dt.date] = {}
    for entry in re.split(r"\n- ", note):
        found = re.search(r"Announced\s+shutdown\s+date:\s+(\d{4}-\d{2}-\d{2})", entry)
        if found:  # '"a", "b": Announced shutdown date: 2026-12-11. See ...'
            for model in re.findall(r'"([^"]+)"', entry[:found.start()]):
                out[model] = dt.date.fromisoformat(found[1])
    return out


def anthropic_shutdowns() -> dict[str, dt.date]:
    """Model -> end-of-life date, from the installed anthropic SDK (``"January 22nd, 2027"``)."""
    from anthropic._data import DEPRECATED_MODELS

    out = {}
    for model, text in DEPRECATED_MODELS.items():
        month, day, year = re.fullmatch(r"(\w+) (\d+)\w*, (\d{4})", text.strip()).groups()  # type: ignore[union-attr]
        out[model] = dt.date(int(year), MONTHS.index(month.lower()) + 1, int(day))
    return out


def test_the_sdks_give_the_dated_aliases_a_shutdown_date() -> None:
    openai, anthropic = openai_shutdowns(), anthropic_shutdowns()
    assert openai["o3"] == openai["gpt-5"] == dt.date(2026, 12, 11), openai
    assert openai["gpt-4.1"] == dt.date(2027, 1, 14)
    assert anthropic["claude-opus-4-5-20251101"] == dt.date(2027, 1, 22)
    assert set(DATED) == set(DEPRECATED)


@pytest.mark.parametrize("alias", DATED)
def test_each_date_and_replacement_is_the_sdks(alias: str) -> None:
    old = DEPRECATED[alias]
    shutdowns = openai_shutdowns() if old.vendor == "OpenAI" else anthropic_shutdowns()
    assert shutdowns.get(old.model) == old.shutdown, (
        f"{alias} -> {old.model}: the installed SDK gives {shutdowns.get(old.model)}, aliases.py {old.shutdown}")
    # the replacement is a current alias of the same vendor (listed and not deprecated: tests/models/test_aliases.py)
    assert old.replacement in (OPENAI_MODELS if old.vendor == "OpenAI" else ANTHROPIC_MODELS)
    assert alias not in OPENAI_MODELS and alias not in ANTHROPIC_MODELS and alias not in RETIRED


# -- resolving, today injected ------------------------------------------------------------------------------

@pytest.mark.parametrize("alias", DATED)
def test_before_the_shutdown_the_alias_resolves_with_a_notice(alias: str) -> None:
    old = DEPRECATED[alias]
    spec = AgentRegistry().resolve(alias, {"model_settings": ModelSettings()}, today=day_before(alias))
    assert (spec.provider, spec.model) == ("openai" if old.vendor == "OpenAI" else "anthropic", old.model)
    assert spec.notice is not None
    assert old.shutdown.isoformat() in spec.notice and f"Use {old.replacement} instead" in spec.notice
    assert f"(in 5 days; today is {day_before(alias).isoformat()})" in spec.notice
    assert spec.deprecation == {"model": old.model, "vendor": old.vendor, "shutdown": old.shutdown.isoformat(),
                                "replacement": old.replacement, "served": True,
                                "as_of": day_before(alias).isoformat()}
    # the day before the shutdown still runs
    last = AgentRegistry().resolve(alias, today=old.shutdown - dt.timedelta(days=1))
    assert last.notice is not None and "(in 1 day; today is" in last.notice


@pytest.mark.parametrize("alias", DATED)
@pytest.mark.parametrize("offset", [0, 1, 400])  # on the shutdown date the vendor turns it off
def test_from_the_shutdown_on_the_alias_is_refused_naming_date_and_replacement(alias: str, offset: int) -> None:
    old = DEPRECATED[alias]
    with pytest.raises(UnknownAgent) as caught:
        AgentRegistry().resolve(alias, today=old.shutdown + dt.timedelta(days=offset))
    message = str(caught.value)
    assert message.startswith(f"agent '{alias}': the alias is retired; use {old.replacement} ")
    assert old.shutdown.isoformat() in message


def test_by_model_id_a_deprecated_model_is_sent_as_given_with_the_notice() -> None:
    before = AgentRegistry().resolve("openai:o3", today=dt.date(2026, 12, 6))
    assert (before.provider, before.model) == ("openai", "o3")
    assert before.notice is not None and "2026-12-11" in before.notice and "gpt-5.5" in before.notice
    after = AgentRegistry().resolve("openai:o3", today=dt.date(2026, 12, 12))  # sent as given, as before
    assert (after.provider, after.model) == ("openai", "o3")
    assert after.notice is not None and "shut o3 down on 2026-12-11" in after.notice
    dated = AgentRegistry().resolve("anthropic:claude-opus-4-5", today=dt.date(2026, 12, 6))
    assert dated.model == "claude-opus-4-5-20251101" and dated.notice is not None


@pytest.mark.parametrize("text", ["gpt-5.5", "claude-opus-4-8", "openai:gpt-5.5", "noop"])
def test_aliases_without_a_dated_shutdown_keep_their_behaviour(text: str) -> None:
    for day in (dt.date(2026, 12, 6), dt.date(2030, 1, 1)):
        spec = AgentRegistry().resolve(text, today=day)
        assert spec.notice is None and spec.deprecation is None


@pytest.mark.parametrize("alias", sorted(RETIRED))
def test_retired_aliases_stay_retired_on_any_date(alias: str) -> None:
    with pytest.raises(UnknownAgent, match="the alias is retired; use "):
        AgentRegistry().resolve(alias, today=dt.date(2020, 1, 1))


def test_today_comes_from_the_environment_or_the_clock() -> None:
    assert today({TODAY_ENV: "2026-12-06"}) == dt.date(2026, 12, 6)
    assert today({}) == dt.date.today()
    with pytest.raises(ValueError, match=r"PYTEST_CUA_TODAY='next week' is not a date \(YYYY-MM-DD\)"):
        today({TODAY_ENV: "next week"})


def test_a_bad_today_is_an_error_naming_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TODAY_ENV, "2026-13-01")
    with pytest.raises(UnknownAgent, match=r"agent 'o3': PYTEST_CUA_TODAY='2026-13-01' is not a date"):
        AgentRegistry().resolve("o3")
    monkeypatch.setenv(TODAY_ENV, "2026-12-06")
    assert AgentRegistry().resolve("o3").notice is not None
    monkeypatch.setenv(TODAY_ENV, "2026-12-11")
    with pytest.raises(UnknownAgent, match="2026-12-11"):
        AgentRegistry().resolve("o3")


# -- inner runs -----------------------------------------------------------------------------------------------

ANSWERED = '''
class Answered(Template):
    """A question: the agent's answer is the ground truth's."""
    name = "answered"
    def evaluate(self, ctx):
        with milestone("the answer is right", 1.0):
            assert ctx.answer == ctx.truth["answer"], f"answered {ctx.answer!r}"
'''
QUESTIONS = [{"id": f"q{i}", "instruction": "What is six times seven? Answer with the number.", "template": "answered",
              "ground_truth": {"answer": "42"}} for i in (1, 2)]


@pytest.fixture
def fake() -> Iterator[tuple[FakeModelServer, list[str]]]:
    """The vendor, played on loopback: every request is answered with the answer "42"; the models asked."""
    models: list[str] = []

    def policy(request: FakeRequest) -> FakeReply:
        models.append(request.model)
        return FakeReply(calls=[FakeCall("answer", {"text": "42"})])

    with FakeModelServer(policy, api_key=KEY) as server:
        yield server, models


@pytest.fixture
def questions(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makepyfile(test_kv=KV_SUITE.replace("TEMPLATES = (", ANSWERED + "\nTEMPLATES = (Answered(), "))
    (pytester.path / "tasks").mkdir()
    for question in QUESTIONS:
        (pytester.path / "tasks" / f"{question['id']}.json").write_text(json.dumps(question))
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.setenv(name, KEY)
    return pytester


def run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, alias: str, day: dt.date,
        *args: str) -> pytest.RunResult:
    monkeypatch.setenv(TODAY_ENV, day.isoformat())
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "--agent", alias, *args, timeout=600)


def warnings_counted(result: pytest.RunResult) -> int:
    """The warning count of the session's last line ("2 passed, 1 warning in 3.1s"); 0 when none."""
    found = re.search(r"(\d+) warnings?\b", result.outlines[-1] if result.outlines else "")
    return int(found[1]) if found else 0


def model_url(alias: str, server: FakeModelServer) -> str:
    return server.openai_base_url if DEPRECATED[alias].vendor == "OpenAI" else server.anthropic_base_url


@pytest.mark.parametrize("alias", DATED)
def test_before_the_shutdown_the_run_passes_with_one_warning(alias: str, questions: pytest.Pytester,
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             fake: tuple[FakeModelServer, list[str]]) -> None:
    server, models = fake
    old = DEPRECATED[alias]
    result = run(questions, monkeypatch, alias, day_before(alias), "--cua-model-url", model_url(alias, server),
                 "--cua-agent-style", "browser")
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == 0, output[-4000:]
    result.stdout.fnmatch_lines(["*2 passed, 1 warning*"])
    warned = [line for line in result.outlines if "PytestWarning: agent '" in line]
    assert len(warned) == 1, output[-4000:]
    assert f"PytestWarning: agent '{alias}': {old.vendor} has deprecated {old.model} and shuts it down on " \
           f"{old.shutdown.isoformat()}" in warned[0] and f"Use {old.replacement} instead." in warned[0]
    assert "DeprecationWarning" not in output  # the SDK's own warning per call is silenced: one warning, not three
    assert set(models) == {old.model} and len(models) == 2  # the deprecated model was called, once per task
    tasks = json.loads((questions.path / "reports" / "summary.json").read_text())["tasks"]
    assert [t["outcome"] for t in tasks] == ["passed", "passed"]
    for record in tasks:
        assert record["agent"]["model"] == old.model
        assert record["agent"]["deprecation"] == {"model": old.model, "vendor": old.vendor,
                                                  "shutdown": old.shutdown.isoformat(),
                                                  "replacement": old.replacement, "served": True,
                                                  "as_of": day_before(alias).isoformat()}


@pytest.mark.parametrize("alias", ["o3", pytest.param("claude-opus-4-5", marks=pytest.mark.full)])
def test_under_xdist_the_warning_is_issued_once(alias: str, questions: pytest.Pytester,
                                                monkeypatch: pytest.MonkeyPatch,
                                                fake: tuple[FakeModelServer, list[str]]) -> None:
    server, models = fake
    result = run(questions, monkeypatch, alias, day_before(alias), "--cua-model-url", model_url(alias, server),
                 "--cua-agent-style", "browser", "-n", "2")
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == 0, output[-4000:]
    assert "2 workers" in output and warnings_counted(result) == 1, output[-4000:]
    assert sum("PytestWarning: agent '" in line for line in result.outlines) == 1, output[-4000:]
    assert set(models) == {DEPRECATED[alias].model} and len(models) == 2
    tasks = json.loads((questions.path / "reports" / "summary.json").read_text())["tasks"]
    assert {t["environment"]["worker"] for t in tasks} <= {"gw0", "gw1"}
    assert all(t["agent"]["deprecation"]["shutdown"] == DEPRECATED[alias].shutdown.isoformat() for t in tasks)


@pytest.mark.parametrize("alias", DATED)
def test_after_the_shutdown_the_run_is_a_usage_error(alias: str, questions: pytest.Pytester,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    old = DEPRECATED[alias]
    result = run(questions, monkeypatch, alias, day_after(alias), "-n", "2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: --agent: agent '{alias}': the alias is retired; use {old.replacement} "
                                 f"*{old.shutdown.isoformat()}*"])
    assert not (questions.path / "reports" / "summary.json").exists()
