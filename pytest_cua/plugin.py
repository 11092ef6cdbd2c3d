"""pytest-cua's pytest plugin: options, ini keys, markers and hook registration.

The work lives elsewhere: collection in ``collection``, fixtures in ``fixtures``, the per-task record in
``records`` and the controller-side reporting in ``reporter``. This module only wires them up.
"""

from __future__ import annotations

from typing import Any, Generator

import pytest

from pytest_cua import collection, records, redaction
from pytest_cua.agents.models.options import add_model_options
from pytest_cua.envs.base import add_core_options, env_settings
from pytest_cua.envs.registry import add_provider_options
from pytest_cua.fixtures import *  # noqa: F401,F403  (the public and private fixtures)
from pytest_cua.fixtures import check_markers
from pytest_cua.reporting import allure as allure_report
from pytest_cua.tasks import DIFFICULTIES, LEVELS

PERSONAS = ("admin", "sales", "service")
# set when the session collected a CUA suite: what redaction.py attached for it (log handlers, Allure plugin)
_REDACTING = pytest.StashKey[tuple[list[Any], Any]]()
_SETUP_STARTED_MS = pytest.StashKey[int]()  # when a task's setup (its episode) started, for Allure


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from pytest_cua import hooks

    pluginmanager.add_hookspecs(hooks)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("cua", "computer-use agent benchmarks (pytest-cua)")
    group.addoption("--agent", dest="cua_agent", default=None, metavar="NAME",
                    help="agent to run: noop, replay, oracle, PROVIDER:MODEL or a model alias such as o3 "
                         "(ini: cua_agent; default noop)")
    group.addoption("--demos", dest="cua_demos", action="store_true", default=False,
                    help="give agents the tasks' demonstration text (demonstration-augmented mode)")
    group.addoption("--cua-reports", dest="cua_reports", default=None, metavar="DIR",
                    help="output folder for summary.json and trajectories (ini: cua_reports_dir; default reports)")
    group.addoption("--cua-run-id", dest="cua_run_id", default=None, metavar="ID",
                    help="name of this run (trajectory folder, container labels); default: a new id")
    group.addoption("--cua-max-steps", dest="cua_max_steps", type=int, default=None, metavar="N",
                    help="override every task's step limit (ini: cua_max_steps)")
    group.addoption("--cua-time-limit", dest="cua_time_limit", type=float, default=None, metavar="SECONDS",
                    help="override every task's time limit; enforced by the episode loop so rollback always "
                         "runs (ini: cua_time_limit)")
    group.addoption("--cua-human", dest="cua_human", default=None, metavar="FILE",
                    help="scripted answers to the agent's ask(question), JSON by task id and question")
    group.addoption("--cua-replay-from", dest="cua_replay_from", default=None, metavar="DIR",
                    help="the replay agent plays recorded trajectories from DIR/<task id>/trajectory.json "
                         "instead of the tasks' demonstrations")
    group.addoption("--cua-baseline", dest="cua_baseline", default=None, metavar="SUMMARY",
                    help="a summary.json to gate against: the run fails when it does worse")
    group.addoption("--cua-max-drop", dest="cua_max_drop", type=float, default=0.0, metavar="FRACTION",
                    help="allowed drop of success rate and mean score against --cua-baseline (default 0)")
    parser.addini("cua_agent", "default agent for --agent", default="noop")
    parser.addini("cua_reports_dir", "default output folder for --cua-reports", default="reports")
    parser.addini("cua_max_steps", "default step limit override", default="")
    parser.addini("cua_time_limit", "default time limit override in seconds", default="")
    add_core_options(group)  # --cua-observe, --keep-env: every environment's
    add_model_options(group)  # the model agents' settings
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
    settings = records.resolve_settings(config)  # validates --agent and the limits early: a usage error
    try:
        env_settings(config)  # --cua-observe and --keep-env, parsed once for every environment
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.stash[records.SETTINGS_KEY] = settings
    if hasattr(config, "workerinput"):
        # allure-pytest cleans its folder in every process; under xdist only the controller may do it
        if getattr(config.option, "clean_alluredir", False):
            config.option.clean_alluredir = False
    else:
        from pytest_cua.reporter import SessionReporter

        config.pluginmanager.register(SessionReporter(config, settings), "cua-session-reporter")


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist: every worker shares the controller's run id."""
    node.workerinput["cua_run_id"] = node.config.stash[records.SETTINGS_KEY].run_id


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    collection.parametrize_tasks(metafunc)


@pytest.hookimpl(wrapper=True)
def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: object) -> Generator[None, Any, Any]:
    result = yield
    return collection.add_broken_sources(collector, obj, check_markers(collector, result))


def pytest_collection_finish(session: pytest.Session) -> None:
    """A session that collected a CUA suite redacts its logs, reports and Allure results; any other session
    (a project that only has pytest-cua installed) is left exactly as it is."""
    if any(getattr(getattr(item, "module", None), collection.SUITE_ATTRIBUTE, None) is not None
           for item in session.items):
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


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> Any:
    return records.teststatus(report)
