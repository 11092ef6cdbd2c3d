"""pytest-cua's pytest plugin: options, ini keys, markers and hook registration.

The work lives elsewhere: collection in ``collection``, fixtures in ``fixtures``, the per-task record in
``records`` and the controller-side reporting in ``reporter``. This module only wires them up.
"""

from __future__ import annotations

from typing import Any, Generator

import pytest

from pytest_cua import collection, records, redaction
from pytest_cua.fixtures import *  # noqa: F401,F403  (the public and private fixtures)
from pytest_cua.tasks import DIFFICULTIES, LEVELS

PERSONAS = ("admin", "sales", "service")
# set when the session collected a CUA suite: what redaction.py attached for it (log handlers, Allure plugin)
_REDACTING = pytest.StashKey[tuple[list[Any], Any]]()


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
    for module_name, function in OPTION_MODULES:
        module = _optional_module(module_name)
        if module is not None:
            getattr(module, function)(group)


# option sets of the environments, each in its own module: (module, function taking the option group)
OPTION_MODULES = (
    ("pytest_cua.envs.browser_options", "add_browser_options"),
    ("pytest_cua.desktop.options", "add_docker_options"),
    ("pytest_cua.envs.salesforce", "add_salesforce_options"),
    ("pytest_cua.agents.models.options", "add_model_options"),
)


def _optional_module(name: str) -> Any:
    import importlib

    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and name.startswith(exc.name):
            return None
        raise


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
    config.addinivalue_line("markers", "cua_env(scope=None): override the rollback scope of a test (objects)")
    settings = records.resolve_settings(config)  # validates --agent and the limits early: a usage error
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
    return collection.add_broken_sources(collector, obj, result)


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


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    """The task record joins the report; in a CUA session no secret reaches JUnit, Allure or the terminal
    through a report (failure text, captured sections, user properties)."""
    report = yield
    records.on_report(item, call, report)
    if _REDACTING in item.config.stash:
        redaction.redact_report(report)
    return report


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> Any:
    return records.teststatus(report)
