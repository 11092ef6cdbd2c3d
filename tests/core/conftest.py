from __future__ import annotations

import json
import textwrap

import pytest

# A small environment for testing the plugin: a key-value store whose state the actions change. It
# implements the Environment protocol for real; behaviours under test (crashes, residue) are switched
# on by keys of the task's ground truth or by module-level flags.
KV_SUITE = '''
import copy, os, time
from pytest_cua.tasks.suite import Suite, Template
from pytest_cua.envs.base import Environment, Snapshot, EnvironmentCrash
from pytest_cua.actions import ActionResult, Fill, Wait
from pytest_cua.observations import Observation
from pytest_cua.tasks.scoring import milestone

PROVISIONED = []

class KV(Environment):
    name = "kv"
    def __init__(self, ctx):
        if os.environ.get("KV_PROVISION_FAILS"):
            raise RuntimeError("no capacity for " + ctx.worker_id)
        self.ctx = ctx
        self.data = {}
        self.sticky = set()
        self.closed = False
        PROVISIONED.append(ctx.worker_id)
        with open(os.environ.get("KV_LOG", os.devnull), "a") as log:
            log.write("provision " + ctx.worker_id + "\\n")
    def begin_task(self, task):
        slow = os.environ.get("KV_SLOW_BEGIN")  # a program that takes this long to start
        if slow:
            time.sleep(float(slow))
    def snapshot(self):
        return Snapshot("kv", copy.deepcopy(self.data))
    def restore(self, snapshot, scope=None):
        if os.environ.get("KV_RESTORE_FAILS") and getattr(self, "crashed", False):
            raise EnvironmentCrash("the store cannot be restored after the crash")
        swallow = os.environ.get("KV_SWALLOW_SIGINT")  # FOLDER: say so there, then lose a Ctrl-C as a weakref
        if swallow:                                      # callback does, and find the store gone
            with open(os.path.join(swallow, f"restoring-{os.getpid()}-{time.time_ns()}"), "w"):
                pass
            try:
                time.sleep(60)
            except KeyboardInterrupt:
                pass
            raise EnvironmentCrash("the store disconnected")
        slow = os.environ.get("KV_SLOW_RESTORE")  # "SECONDS:FOLDER": say so in FOLDER, then take that long
        if slow:
            seconds, folder = slow.split(":", 1)
            with open(os.path.join(folder, f"restoring-{os.getpid()}-{time.time_ns()}"), "w"):
                pass
            time.sleep(float(seconds))
        kept = {k: v for k, v in self.data.items() if k in self.sticky}
        self.data = copy.deepcopy(snapshot.data)
        self.data.update(kept)
    def residue(self, snapshot):
        keys = sorted(set(self.data) | set(snapshot.data))
        return [f"key {k!r} = {self.data.get(k)!r}" for k in keys if self.data.get(k) != snapshot.data.get(k)]
    def observe(self, kinds):
        return Observation(url="kv://store", title=repr(sorted(self.data.items())))
    def act(self, action):
        if isinstance(action, Fill):
            if action.target == "crash":
                self.crashed = True
                raise RuntimeError("store went away")
            if action.target.startswith("sticky"):
                self.sticky.add(action.target)
            self.data[action.target] = action.text
            return ActionResult(action)
        if isinstance(action, Wait):
            time.sleep(action.seconds)
            return ActionResult(action)
        return ActionResult(action, ok=False, error=f"kv cannot {action.kind}")
    def describe(self):
        return {"name": "kv", "worker": self.ctx.worker_id}
    def close(self):
        self.closed = True

class SetKeys(Template):
    name = "set_keys"
    def evaluate(self, ctx):
        keys = ctx.truth["keys"]
        for key, value in keys.items():
            with milestone(f"{key} is {value}", 1 / len(keys)):
                actual = ctx.env.data.get(key)
                assert actual == value, f"{key} is {actual!r}"
    def solve(self, task, env):
        env.data.update(task.ground_truth["keys"])

class Crashing(Template):
    name = "crashing"
    def evaluate(self, ctx):
        with milestone("reads a record", 1.0):
            {}["missing"]

class CrashOutside(Template):
    name = "crash_outside"
    def evaluate(self, ctx):
        records = None
        records[0]  # before any milestone

class BadWeights(Template):
    name = "bad_weights"
    def evaluate(self, ctx):
        with milestone("only half", 0.5):
            pass

class Arranged(SetKeys):
    """Its tasks start from a key the snapshot lacks (``arrange``); the evaluation needs it."""
    name = "arranged"
    def arrange(self, task, env):
        if task.ground_truth.get("arrange_fails"):
            raise LookupError("no such fixture record")
        env.data["given"] = "yes"
    def evaluate(self, ctx):
        with milestone("arranged before the agent", 0.5):
            assert ctx.env.data.get("given") == "yes", "the arranged key is missing"
        with milestone("no leftover of an earlier task", 0.5):
            assert "left_by_earlier" not in ctx.env.data

class Declared(SetKeys):
    """Declares the ground-truth keys its tasks may hold."""
    name = "declared"
    ground_truth_keys = ("keys",)

class Required(SetKeys):
    """Declares its ground-truth keys, ``keys`` required and ``note`` optional."""
    name = "required"
    ground_truth_keys = ("keys", "note")
    ground_truth_optional = ("note",)

TEMPLATES = (SetKeys(), Crashing(), CrashOutside(), BadWeights(), Arranged(), Declared(), Required())
CUA_SUITE = Suite("kv", environment=KV, templates={t.name: t for t in TEMPLATES},
                  task_fields=os.environ.get("KV_TASK_FIELDS", "").split())

def test_task(cua_result):
    cua_result.check()
'''


def task(tid: str, keys: dict | None = None, **fields) -> dict:
    keys = keys if keys is not None else {"a": "1"}
    data = {"id": tid, "instruction": f"set {keys}", "template": "set_keys", "ground_truth": {"keys": keys},
            "demonstration": {"actions": [{"type": "fill", "target": k, "text": v} for k, v in keys.items()]}}
    data.update(fields)
    return data


@pytest.fixture
def kv_suite(pytester: pytest.Pytester):
    """Write the KV suite into the pytester folder; returns a function that writes task files."""
    pytester.makepyfile(test_kv=KV_SUITE)
    (pytester.path / "tasks").mkdir()

    def write(name: str, content) -> None:
        text = content if isinstance(content, str) else json.dumps(content)
        (pytester.path / "tasks" / name).write_text(textwrap.dedent(text))

    return write


def read_summary(pytester: pytest.Pytester) -> dict:
    return json.loads((pytester.path / "reports" / "summary.json").read_text())


def records_by_id(pytester: pytest.Pytester) -> dict:
    return {r["id"]: r for r in read_summary(pytester)["tasks"]}
