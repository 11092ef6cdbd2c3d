"""pytest-cua's pytest plugin: options, ini keys, markers and hook registration.

The work lives elsewhere: the run's settings in ``pytest_cua.episode.settings``, collection in
``pytest_cua.tasks.collection``, fixtures in ``pytest_cua.fixtures``, the per-task record in
``pytest_cua.results.records``, reruns of errors in ``pytest_cua.results.reruns`` and the controller-side
reporting in ``pytest_cua.results.reporter``. This module only wires them up.
"""

from __future__ import annotations

import os
import signal
import threading

from typing import Any, Generator

import pytest

from pytest_cua import redaction

from pytest_cua.tasks import collection

from pytest_cua.episode.settings import SETTINGS_KEY, resolve_settings
from pytest_cua.results import records
from pytest_cua.results.runs import INTERRUPTED_KEY, SIGINT_KEY, run_store, sigint_seen
from pytest_cua.results.reporter import junit_properties_of_unfinished
from pytest_cua.agents.models.options import add_model_options
from pytest_cua.episode.judge import add_judge_options
from pytest_cua.envs.base import add_core_options, env_settings
from pytest_cua.envs.registry import add_provider_options, configure_providers, preflight
from pytest_cua.fixtures import *  # noqa: F401,F403  (the public and private fixtures)
from pytest_cua.fixtures import check_markers
from pytest_cua.episode.human import human_file_option
from pytest_cua.results import allure as allure_report
from pytest_cua.tasks.task import DIFFICULTIES, LEVELS

PERSONAS = ("admin", "sales", "service")
# set when the session collected a CUA suite: what redaction.py attached for it (log handlers, Allure plugin)
_REDACTING = pytest.StashKey[tuple[list[Any], Any]]()
_SETUP_STARTED_MS = pytest.StashKey[int]()  # when a task's setup (its episode) started, for Allure
_RESUME_DONE = pytest.StashKey[frozenset[str]]()  # --cua-resume: the tests already done (see resume_done)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from pytest_cua import hooks

    pluginmanager.add_hookspecs(hooks)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("cua", "computer-use agent benchmarks (pytest-cua)")
    group.addoption("--agent", dest="cua_agent", default=None, metavar="NAME",
                    help="agent to run: noop, replay, oracle, PROVIDER:MODEL or a model alias such as gpt-5.5 "
                         "(ini: cua_agent; default noop)")
    group.addoption("--demos", dest="cua_demos", action="store_true", default=False,
                    help="give agents the tasks' demonstration text (demonstration-augmented mode)")
    group.addoption("--cua-reports", dest="cua_reports", default=None, metavar="DIR",
                    help="output folder for summary.json and trajectories (ini: cua_reports_dir; default reports)")
    group.addoption("--cua-run-id", dest="cua_run_id", default=None, metavar="ID",
                    help="name of this run (trajectory folder, container labels); default: a new id")
    group.addoption("--cua-overwrite", dest="cua_overwrite", action="store_true", default=False,
                    help="with --cua-run-id ID naming an earlier run: replace it (its records, trajectories and "
                         "cost ledger are deleted); without it, reusing an id is a usage error")
    group.addoption("--cua-max-steps", dest="cua_max_steps", type=int, default=None, metavar="N",
                    help="override every task's step limit (ini: cua_max_steps)")
    group.addoption("--cua-time-limit", dest="cua_time_limit", type=float, default=None, metavar="SECONDS",
                    help="override every task's time limit; enforced by the episode loop so rollback always "
                         "runs (ini: cua_time_limit)")
    group.addoption("--cua-human", dest="cua_human", default=None, metavar="FILE", type=human_file_option,
                    help="the scripted human, JSON or YAML by task id or glob: answers to the agent's "
                         "ask(question) and takeovers ([{at_step: N, actions: [...]}]) (docs/takeover.md)")
    group.addoption("--cua-takeover", dest="cua_takeover", action="store_true", default=False,
                    help="desktop tasks: watch through VNC (loopback port printed) and take control with Pause; "
                         "the human's input becomes human steps (docs/takeover.md)")
    group.addoption("--cua-replay-from", dest="cua_replay_from", default=None, metavar="DIR",
                    help="the replay agent plays recorded trajectories from DIR/<task id>/trajectory.json "
                         "instead of the tasks' demonstrations")
    group.addoption("--cua-baseline", dest="cua_baseline", default=None, metavar="SUMMARY",
                    help="a summary.json to gate against: the run fails when it does worse")
    group.addoption("--cua-max-drop", dest="cua_max_drop", type=float, default=0.0, metavar="FRACTION",
                    help="allowed drop of the success rate against --cua-baseline, 0..1 (default 0): the gate "
                         "fails on a significant drop larger than this")
    group.addoption("--cua-gate-alpha", dest="cua_gate_alpha", type=float, default=0.05, metavar="ALPHA",
                    help="significance level of the baseline gate's paired test (default 0.05)")
    group.addoption("--cua-quarantine-flaky", dest="cua_quarantine_flaky", action="store_true", default=False,
                    help="leave tasks with mixed results across trials (in either run) out of the gate")
    group.addoption("--cua-trials", dest="cua_trials", type=int, default=None, metavar="K",
                    help="run every task K times, each an independent episode rolled back after it; test ids "
                         "gain -trialN (ini: cua_trials; default 1)")
    group.addoption("--cua-retry-errors", dest="cua_retry_errors", type=int, default=None, metavar="N",
                    help="run a task again, up to N times, when it ended in error (provisioning, environment, "
                         "agent infrastructure, worker crash); never when it failed (ini: cua_retry_errors)")
    group.addoption("--cua-resume", dest="cua_resume", default=None, metavar="RUN_ID",
                    help="complete an interrupted run: run only the tasks (and trials) with no final record in "
                         "RUN_ID and write one summary for the whole run")
    group.addoption("--cua-scoring", dest="cua_scoring", default=None, metavar="NAME",
                    help="which of a suite's scorings decides passed / failed, the summary and the gate: its own "
                         "(default) or another it declares (the SCUBA suite: scuba, its evaluator's rules "
                         "exactly; see --scuba-scoring) (ini: cua_scoring)")
    parser.addini("cua_agent", "default agent for --agent", default="noop")
    parser.addini("cua_scoring", "default scoring for --cua-scoring", default="")
    parser.addini("cua_reports_dir", "default output folder for --cua-reports", default="reports")
    parser.addini("cua_max_steps", "default step limit override", default="")
    parser.addini("cua_time_limit", "default time limit override in seconds", default="")
    parser.addini("cua_trials", "default number of trials per task for --cua-trials", default="")
    parser.addini("cua_retry_errors", "default number of retries of error outcomes for --cua-retry-errors",
                  default="")
    add_core_options(group)  # --cua-observe, --keep-env: every environment's
    add_model_options(group)  # the model agents' settings
    add_judge_options(group)  # --cua-judge, --cua-judge-url: the rubric judge of L4 tasks
    add_provider_options(group)  # each installed environment provider adds its own


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    for persona in PERSONAS:
        config.addinivalue_line("markers", f"{persona}: task of the {persona} persona")
    for difficulty in DIFFICULTIES:
        config.addinivalue_line("markers", f"{difficulty}: task of {difficulty} difficulty")
    for level in LEVELS:
        config.addinivalue_line("markers", f"{level}: task of level {level} (ProSoftArena levels L1-L4)")
    config.addinivalue_line("markers", "template_NAME: task of template NAME (one marker per template)")
    config.addinivalue_line("markers", "app_NAME: task that uses application NAME (desktop suites)")
    config.addinivalue_line("markers", "question: a question task, scored on the agent's answer")
    config.addinivalue_line("markers", "cua_env(*, scope=None): the objects a test may change (a list of names), "
                                       "its rollback scope instead of the template's")
    config.pluginmanager.register(EarlyEnd(config), "cua-early-end")
    allure_report.hide_private_fixtures()  # Allure's set-up list shows the documented fixtures only
    settings = resolve_settings(config)  # validates --agent and the limits early: a usage error
    try:
        env_settings(config)  # --cua-observe and --keep-env, parsed once for every environment
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    configure_providers(config)  # each provider's own options (--cua-orgs and the worker count, ...)
    config.stash[SETTINGS_KEY] = settings
    if settings.retry_errors and (getattr(config.option, "reruns", 0) or 0) > 0:
        raise pytest.UsageError("--cua-retry-errors and --reruns both run tests again: --cua-retry-errors runs "
                                "errors only (never failures); choose one")
    if settings.retry_errors and config.getoption("usepdb"):
        raise pytest.UsageError("--cua-retry-errors with --pdb: the debugger would stop at every attempt; debug "
                                "one attempt without --cua-retry-errors")
    if not hasattr(config, "workerinput") and getattr(config.option, "numprocesses", None):
        tune_worker_memory()
    if hasattr(config, "workerinput"):
        # allure-pytest cleans its folder in every process; under xdist only the controller may do it
        if getattr(config.option, "clean_alluredir", False):
            config.option.clean_alluredir = False
    else:
        from pytest_cua.results.reporter import SessionReporter

        if settings.resume:
            resume_done(config)  # before this session writes any record
        config.pluginmanager.register(SessionReporter(config, settings), "cua-session-reporter")


#: glibc's allocator settings for xdist workers (read by each worker process at its start): two arenas instead of
#: eight per core, and buffers above 128 KB (screenshots, images scaled for a model, base64 strings) mapped and
#: given back to the system when freed, rather than kept in the heap. A worker's resident memory over a model
#: run drops by about a fifth (benchmarks/remote_browsers.py). A value the user set is kept.
WORKER_MALLOC = {"MALLOC_ARENA_MAX": "2", "MALLOC_MMAP_THRESHOLD_": "131072", "MALLOC_TRIM_THRESHOLD_": "131072"}


def tune_worker_memory() -> None:
    """Set WORKER_MALLOC in this (the controller's) environment before xdist starts the workers, which inherit
    it; variables already set are left alone."""
    for name, value in WORKER_MALLOC.items():
        os.environ.setdefault(name, value)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist: every worker shares the controller's run id and, with --cua-resume, the controller's list of the
    tests that are done (read once: a worker started after a crash must collect what the others collected)."""
    node.workerinput["cua_run_id"] = node.config.stash[SETTINGS_KEY].run_id
    if node.config.stash[SETTINGS_KEY].resume:
        node.workerinput["cua_resume_done"] = sorted(resume_done(node.config))


def resume_done(config: pytest.Config) -> frozenset[str]:
    """--cua-resume: the test ids with a final record in the run, as they were when this session started (an
    error is final unless --cua-retry-errors is given)."""
    done = config.stash.get(_RESUME_DONE, None)
    if done is None:
        workerinput = getattr(config, "workerinput", None)
        if workerinput is not None and "cua_resume_done" in workerinput:
            done = frozenset(workerinput["cua_resume_done"])
        else:
            settings = config.stash[SETTINGS_KEY]
            done = frozenset(nodeid for nodeid, record in run_store(config).records().items()
                             if record.get("outcome") != "error" or not settings.retry_errors)
        config.stash[_RESUME_DONE] = done
    return done


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    settings = metafunc.config.stash.get(SETTINGS_KEY, None)
    collection.parametrize_tasks(metafunc, trials=settings.trials if settings is not None else 1,
                                 time_limit_s=settings.time_limit_s if settings is not None else None)


@pytest.hookimpl(wrapper=True)
def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: object) -> Generator[None, Any, Any]:
    result = yield
    return collection.add_broken_sources(collector, obj, check_markers(collector, result))


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """--cua-resume: deselect the tests that already have a final record in the run (on every xdist worker
    alike: each gets the controller's list, read when the session started). Then, for the suites left, what can
    be known before anything runs: ``--cua-scoring`` names a scoring of the suite, and its environment provider
    finds nothing missing (``EnvironmentProvider.preflight``); a suite that fails either is one collection error
    naming the cause and what to run, and none of its tasks runs."""
    settings = config.stash[SETTINGS_KEY]
    if not config.option.collectonly:  # the run's tasks, before --cua-resume leaves out what is done
        run_store(config).note_collected(item.nodeid for item in items
                                         if collection.TASK_ARG in getattr(item, "fixturenames", ()))
    if settings.resume:
        final = resume_done(config)
        done = [item for item in items if item.nodeid in final]
        if done:
            items[:] = [item for item in items if item.nodeid not in final]
            config.hook.pytest_deselected(items=done)
    collection.check_scoring(config, items, settings.scoring)
    if config.option.collectonly:
        return
    for suite, its in collection.suites_of(items):
        problem = preflight(suite, config)
        if problem:
            collection.refuse(config, items, suite, its, problem)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    """--cua-retry-errors: task tests run through ``reruns.run_with_retries``."""
    from pytest_cua.results import reruns

    if reruns.wants_retries(item):
        return reruns.run_with_retries(item, nextitem)
    return None


def _has_cua_items(session: pytest.Session) -> bool:
    return any(getattr(getattr(item, "module", None), collection.SUITE_ATTRIBUTE, None) is not None
               for item in session.items)


class EarlyEnd:
    """Ctrl-C, ``pytest.exit`` or quitting ``--pdb`` ends the session early: noted in the config's stash, so that
    what fails to roll back or close after it (a terminal's Ctrl-C signals the whole process group: Chromium is
    gone) is noted rather than raised, and the run ends as pytest's interrupt does, with its summary."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self._previous: Any = None

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """In a session of CUA tasks, note a Ctrl-C as it arrives, then raise it as Python does: should the
        KeyboardInterrupt land where Python can only print it (a weakref callback, a ``__del__``), the note still
        ends the run as one."""
        if not _has_cua_items(session) or threading.current_thread() is not threading.main_thread() \
                or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
            return  # SIGINT is ignored or someone else's: left as it is
        self._previous = signal.default_int_handler

        def on_sigint(signum: int, frame: Any) -> None:
            self.config.stash[SIGINT_KEY] = True
            signal.default_int_handler(signum, frame)

        signal.signal(signal.SIGINT, on_sigint)

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self._previous is not None and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        """A Ctrl-C Python swallowed: no further task starts; the session ends as interrupted."""
        if sigint_seen(self.config):
            raise KeyboardInterrupt("Ctrl-C (noted when it arrived)")

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> None:
        """After the test's fixtures are torn down: a Ctrl-C Python swallowed ends the session here."""
        if sigint_seen(self.config) and INTERRUPTED_KEY not in self.config.stash:
            raise KeyboardInterrupt("Ctrl-C (noted when it arrived)")

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        self.config.stash[INTERRUPTED_KEY] = excinfo.typename

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Before junitxml writes its file: a task test whose session ended before its teardown (quitting
        ``--pdb``, Ctrl-C) gets the ``cua_*`` properties of the record its call wrote."""
        if not hasattr(self.config, "workerinput") and SETTINGS_KEY in self.config.stash:
            junit_properties_of_unfinished(self.config, run_store(self.config).records())


def pytest_collection_finish(session: pytest.Session) -> None:
    """A session that collected a CUA suite redacts its logs, reports and Allure results; any other session
    (a project that only has pytest-cua installed) is left exactly as it is."""
    if _has_cua_items(session):
        handlers = redaction.install_log_redaction(redaction.session_log_handlers(session.config))
        session.config.stash[_REDACTING] = (handlers, redaction.install_allure_redaction())


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Detach what pytest_collection_finish attached."""
    handlers, allure_plugin = session.config.stash.get(_REDACTING, ([], None))
    redaction.remove_log_redaction(handlers)
    redaction.remove_allure_redaction(allure_plugin)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A task's setup is where its episode runs: note when it starts (for its Allure duration)."""
    if collection.TASK_ARG in getattr(item, "fixturenames", ()):
        item.stash[_SETUP_STARTED_MS] = allure_report.now_ms()
        records.on_setup_start(item)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    """allure-pytest has just started the test's clock at the call: move the start back to the setup's."""
    started = item.stash.get(_SETUP_STARTED_MS, None)
    if started is not None:
        allure_report.stretch_to_setup(started)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    """The task record joins the report; in a CUA session no secret reaches JUnit, Allure or the terminal
    through a report (failure text, captured sections, user properties)."""
    report = yield
    started = item.stash.get(_SETUP_STARTED_MS, None)
    if started is not None and call.when == "setup" and not report.passed:
        allure_report.stretch_to_setup(started, stop_now=True)  # no call follows to set the times
    records.on_report(item, call, report)
    if _REDACTING in item.config.stash:
        redaction.redact_report(report)
    return report


def pytest_report_header(config: pytest.Config) -> list[str]:
    """A deprecated model's notice (its shutdown date and replacement) at the start of the run."""
    settings = config.stash.get(SETTINGS_KEY, None)
    notice = getattr(getattr(settings, "agent", None), "notice", None)
    return [f"pytest-cua: {notice}"] if notice and not hasattr(config, "workerinput") else []


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> Any:
    return records.teststatus(report)
