"""The provider contract: a provider is one module and one entry point in ``pytest_cua.environments``; it adds
its own options and creates an environment from an ``EnvContext`` (artifacts folder, worker id, suite, the
shared settings); the pool calls ``Suite.prepare`` once per provisioned environment for every provider; the
options every environment shares are the core's, parsed once; the episode alone numbers the steps and reports
the previous action's error."""

from __future__ import annotations

import json
import textwrap

import pytest

from pytest_cua.envs.base import EnvContext, Environment, EnvSettings, Snapshot, env_settings

PROVIDER_MODULE = '''
import json, os
from pytest_cua.actions import ActionResult, Fill
from pytest_cua.envs.base import Environment, EnvironmentProvider, Snapshot
from pytest_cua.observations import Observation


class Notes(Environment):
    """A dict of notes; every observation claims step 99 and a stale error (the episode must overrule both)."""

    name = "notes"

    def __init__(self, ctx):
        self.ctx = ctx
        self.notes = {}

    def snapshot(self):
        return Snapshot("notes", dict(self.notes))

    def restore(self, snapshot, scope=None):
        sticky = self.notes.get("sticky")  # with NOTES_STICKY, the rollback forgets this one
        self.notes = dict(snapshot.data)
        if sticky is not None and os.environ.get("NOTES_STICKY"):
            self.notes["sticky"] = sticky

    def residue(self, snapshot):
        return [f"note {k}" for k in sorted(set(self.notes) ^ set(snapshot.data))]

    def observe(self, kinds):
        return Observation(step=99, last_error="stale error from the environment", title=repr(sorted(self.notes)))

    def act(self, action):
        if isinstance(action, Fill):
            if action.target == "bad":
                return ActionResult(action, ok=False, error="no such note")
            self.notes[action.target] = action.text
            return ActionResult(action)
        return ActionResult(action, ok=False, error=f"notes cannot {action.kind}")


class NotesProvider(EnvironmentProvider):
    name = "notes"

    def add_options(self, group):
        group.addoption("--notes-label", dest="notes_label", default="plain", help="a label for the notes")

    def create(self, ctx):
        with open(os.environ["NOTES_LOG"], "a") as log:
            log.write(json.dumps({"event": "create", "worker": ctx.worker_id, "suite": ctx.suite.name,
                                  "artifacts": str(ctx.artifacts_dir), "label": ctx.option("notes_label"),
                                  "keep_env": ctx.keep_env,
                                  "observe": sorted(ctx.settings.observe or [])}) + "\\n")
        return Notes(ctx)


PROVIDER = NotesProvider()
'''

SUITE = '''
import json, os
from pytest_cua.agents.base import Agent, Turn
from pytest_cua.actions import Done, Fill
from pytest_cua.tasks.scoring import milestone
from pytest_cua.tasks.suite import Suite, Template


class Remember(Template):
    name = "remember"

    def evaluate(self, ctx):
        with milestone("noted", 1.0):
            assert ctx.env.notes.get("a") == "1", f"notes are {ctx.env.notes}"


class NotesSuite(Suite):
    def prepare(self, env, config):
        with open(os.environ["NOTES_LOG"], "a") as log:
            log.write(json.dumps({"event": "prepare", "env": env.name}) + "\\n")


CUA_SUITE = NotesSuite("notes", environment="notes", templates={"remember": Remember()})


def test_task(cua_result):
    cua_result.check()
'''

AGENT_CONFTEST = '''
import json, os
import pytest
from pytest_cua.agents.base import Agent, Turn
from pytest_cua.actions import Done, Fill


class Recorder(Agent):
    """Fails once, then fills the note; records what each observation says."""

    name = "recorder"

    def start(self, task, context):
        self.plan = [Fill("bad", "x"), Fill("a", "1"), Done()]

    def step(self, observation):
        with open(os.environ["NOTES_LOG"], "a") as log:
            log.write(json.dumps({"event": "observation", "step": observation.step,
                                  "last_error": observation.last_error}) + "\\n")
        return [self.plan.pop(0)]


def pytest_cua_agents(config):
    return {"recorder": Recorder}
'''


def install_provider(pytester: pytest.Pytester, entry_points: str) -> None:
    """A distribution on the inner run's sys.path (its folder) whose entry points name providers."""
    pytester.makepyfile(notes_provider=PROVIDER_MODULE)
    info = pytester.path / "notes_provider-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: notes-provider\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points))


def events(path, kind: str) -> list[dict]:
    return [e for e in map(json.loads, path.read_text().splitlines()) if e["event"] == kind]


@pytest.fixture
def notes_run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch):
    install_provider(pytester, """
        [pytest_cua.environments]
        notes = notes_provider:PROVIDER
        broken = no_such_module_for_pytest_cua:PROVIDER
    """)
    pytester.makepyfile(test_notes=SUITE)
    pytester.makeconftest(AGENT_CONFTEST)
    (pytester.path / "tasks").mkdir()
    tasks = [{"id": f"n{i}", "instruction": "note a=1", "template": "remember",
              "demonstration": {"actions": [{"type": "fill", "target": "a", "text": "1"}]}} for i in (1, 2, 3)]
    (pytester.path / "tasks" / "t.json").write_text(json.dumps(tasks))
    log = pytester.path / "notes.log"
    monkeypatch.setenv("NOTES_LOG", str(log))
    return log


def test_a_provider_is_one_module_and_one_entry_point(pytester: pytest.Pytester, notes_run) -> None:
    help_text = pytester.runpytest_subprocess("--help").stdout.str()
    assert "--notes-label" in help_text  # the provider added its own option
    run = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--agent", "recorder", "--notes-label", "blue",
                                        "--cua-observe", "screenshot,dom")
    run.assert_outcomes(passed=3)
    created = events(notes_run, "create")
    assert len(created) == 1
    (ctx,) = created
    assert ctx["worker"] == "master" and ctx["suite"] == "notes" and ctx["label"] == "blue"
    assert ctx["artifacts"].endswith(f"/reports/artifacts/{json.loads((pytester.path / 'reports' / 'summary.json').read_text())['run']['id']}/master")
    assert ctx["keep_env"] is False and ctx["observe"] == ["dom", "screenshot"]
    assert events(notes_run, "prepare") == [{"event": "prepare", "env": "notes"}]  # once, by the pool


def test_the_episode_alone_numbers_steps_and_reports_the_last_error(pytester: pytest.Pytester, notes_run) -> None:
    pytester.runpytest_subprocess("-p", "no:cacheprovider", "--agent", "recorder", "-k", "n1").assert_outcomes(passed=1)
    seen = [(e["step"], e["last_error"]) for e in events(notes_run, "observation")]
    assert seen == [(0, None), (1, "fill(target='bad', text='x') failed: no such note"), (2, None)]


def test_prepare_runs_again_for_a_new_environment_after_a_failed_rollback(pytester: pytest.Pytester, notes_run,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOTES_STICKY", "1")
    sticky = json.dumps([{"id": "n0", "instruction": "leave a note behind", "template": "remember",
                          "demonstration": {"actions": [{"type": "fill", "target": "sticky", "text": "x"},
                                                        {"type": "fill", "target": "a", "text": "1"}]}}])
    (pytester.path / "tasks" / "sticky.json").write_text(sticky)
    run = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--agent", "replay", "-k", "n0 or n1")
    run.assert_outcomes(passed=2, errors=1)  # n0's rollback leaves its note: an error; n1 gets a new environment
    assert len(events(notes_run, "create")) == 2
    assert len(events(notes_run, "prepare")) == 2


def test_a_provider_that_does_not_load_breaks_only_its_suites(pytester: pytest.Pytester, notes_run) -> None:
    pytester.makepyfile(test_broken='''
from pytest_cua.tasks.suite import Suite

CUA_SUITE = Suite("broken", environment="broken")

def test_task(cua_result):
    cua_result.check()
''')
    (pytester.path / "tasks" / "t.json").write_text(json.dumps([{"id": "b1", "instruction": "x"}]))
    run = pytester.runpytest_subprocess("-p", "no:cacheprovider", "test_broken.py")
    run.assert_outcomes(errors=1)
    run.stdout.fnmatch_lines(["*environment provider 'broken' did not load: no_such_module_for_pytest_cua:PROVIDER:"
                              " ModuleNotFoundError*"])


def test_a_bad_observe_option_is_a_usage_error_for_any_suite(pytester: pytest.Pytester, notes_run) -> None:
    run = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--cua-observe", "screenshot,smell")
    assert run.ret == pytest.ExitCode.USAGE_ERROR
    assert "--cua-observe: unknown observation kind(s) smell" in run.stderr.str()


def test_the_shared_settings_are_parsed_once_per_config() -> None:
    class Config:
        class option:  # noqa: N801 - mimics pytest's config.option
            cua_observe = "som"
            keep_env = True

        stash = pytest.Stash()

    config = Config()
    first = env_settings(config)
    Config.option.cua_observe = "dom"  # read once: a later change is not seen
    assert env_settings(config) is first and first == EnvSettings(observe=frozenset({"som"}), keep_env=True)
    ctx = EnvContext(worker_id="gw3", run_id="r1", config=config, settings=first)
    assert ctx.keep_env and str(ctx.artifacts_dir).endswith("reports/artifacts/r1/gw3")


def test_keep_env_message_is_the_environment_s() -> None:
    class Plain(Environment):
        name = "plain"

        def snapshot(self) -> Snapshot:
            return Snapshot("plain")

        def restore(self, snapshot, scope=None) -> None:
            pass

        def residue(self, snapshot) -> list[str]:
            return []

        def observe(self, kinds):  # type: ignore[override]
            raise NotImplementedError

        def act(self, action):  # type: ignore[override]
            raise NotImplementedError

        def describe(self) -> dict:
            return {"name": "plain", "where": "here"}

    assert Plain().keep_env_message() == "pytest-cua --keep-env: name=plain, where=here"
    assert Plain.kept_in_process is False
