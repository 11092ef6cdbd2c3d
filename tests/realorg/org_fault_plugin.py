"""A pytest plugin for the inner runs of ``test_suite_on_api_orgs``: during the call of one task it does what a
misbehaving agent or a dying worker would, through the org's API (``PYTEST_CUA_TEST_ORG_FAULT=KIND:TASK_ID[,...]``,
``*`` for every task):

- ``outside``: changes an Account's description (outside every Lead task's scope); with
  ``PYTEST_CUA_TEST_ORG_FAULT_LOG=FILE`` it writes whether the change was made or the org refused it (a task
  that made a validation rule on Account);
- ``kill``: creates a Lead, then kills this worker (SIGKILL) before the task's rollback;
- ``exhaust``: spends the org's remaining daily API requests, so the task's next call meets
  REQUEST_LIMIT_EXCEEDED.
"""

from __future__ import annotations

import os
import signal
from typing import Any

import pytest


def _fault(item: pytest.Item) -> str | None:
    kind, _, tasks = os.environ.get("PYTEST_CUA_TEST_ORG_FAULT", "").partition(":")
    wanted = [t for t in tasks.split(",") if t]
    return kind if any(t == "*" or item.nodeid.endswith(f"[{t}]") for t in wanted) else None


def _log(item: pytest.Item, what: str) -> None:
    path = os.environ.get("PYTEST_CUA_TEST_ORG_FAULT_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(f"{item.nodeid.rsplit('[', 1)[-1].rstrip(']')} {what}\n")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    kind = _fault(item)
    env = getattr(item, "funcargs", {}).get("cua_env")
    if kind and env is not None:
        org = env.org
        if kind == "outside":
            account = org.query("SELECT Id FROM Account ORDER BY Name LIMIT 1")["records"][0]["Id"]
            try:
                org.Account.update(account, {"Description": "set by the fault plugin"})
                _log(item, "changed")
            except Exception as exc:  # noqa: BLE001 - the task's own rule refused it (a validation rule on Account)
                _log(item, f"refused: {type(exc).__name__}")
        elif kind == "kill":
            org.Lead.create({"LastName": "Left by a killed worker", "Company": "Gone"})
            os.kill(os.getpid(), signal.SIGKILL)
        elif kind == "exhaust":
            client = env.handle.client
            client.session._waits = (0.01, 0.01)  # keep the test short; the production waits are 1, 2, 4 s
            remaining = int(client.limits()["DailyApiRequests"]["Remaining"])
            for _ in range(remaining):
                client.session.get(f"{client.base}/sobjects", timeout=30,
                                   headers={"Authorization": f"Bearer {client.token}"})
    return (yield)
