"""A benchmark paper's tables from a run's records (ProSoftArena's layout; the groupings are generic).

- ``task_table`` (the paper's Table 2): per level, the tasks of the run, the mean length of their
  demonstrations in steps (``demo_steps``: the actions of each task file's demonstration, waits and the
  final done / fail / answer left out) and the mean seconds of a replay run's passed episodes, beside the
  paper's human figures (``PAPER_HUMAN``).
- ``results_table``: per level, success rate as the mean +- standard error over trials: each trial's
  success rate (passed / scored episodes of that trial; errors, skips and partially scored episodes are not
  scored, as in ``reports/summary.json``), then their mean and standard error (sample standard deviation /
  sqrt(trials)); with one trial there is no standard error (n=1).
- ``group_table``: that success rate per group and level: per program (the ``app_<name>`` markers the
  records carry), per domain (``domain_<name>``), per observation setting (``observation_setting``).
- ``usage_table``: tokens and cost per level.

``build_tables`` makes them all as JSON-ready data, ``pytest_cua.results.tables_markdown`` as markdown. A
task in several groups (a pipeline of two programs) counts in each.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from pytest_cua.actions import ACTION_TYPES
from pytest_cua.results.stats import mean_se

LEVELS = ("L1", "L2", "L3", "L4")
ALL = "all"
# ProSoftArena's Table 2: a human expert's mean steps and seconds per task, by level (none for L4)
PAPER_HUMAN: dict[str, tuple[float, float]] = {"L1": (5.1, 14.8), "L2": (20.4, 83.1), "L3": (86.9, 506.8)}
# the marker prefixes the group tables read from a record's ``markers``
GROUP_MARKERS = {"program": "app_", "domain": "domain_"}
# the record keys (first found wins) that may name the observation setting, at the top, under agent or env
OBSERVATION_KEYS = ("observation_setting", "observation", "observe", "observation_kinds")
NOT_STEPS = frozenset({"wait", *(kind for kind, cls in ACTION_TYPES.items() if cls.terminal)})
SCORED = ("passed", "failed")

Record = Mapping[str, Any]


class TablesError(ValueError):
    """Input the tables cannot be made from; the message names the file and the field."""


# --- inputs ---------------------------------------------------------------------------------------------------

def load_run(path: str | Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The records and run settings of a run: ``summary.json``, a reports folder holding one, or a run folder
    (``reports/runs/<id>``: its ``records/*.json`` and ``run.json``, for a run that wrote no summary)."""
    path = Path(path)
    if path.is_dir() and not (path / "summary.json").is_file() and (path / "records").is_dir():
        from pytest_cua.results.runs import RunStore

        if path.resolve().parent.name != "runs":
            raise TablesError(f"{path}: not a run folder (reports/runs/<run id>) nor a folder holding summary.json")
        path = path.resolve()
        store = RunStore(path.parent.parent, path.name)
        records = list(store.records().values())
        if not records:
            raise TablesError(f"{path}/records: no task record in it")
        return records, {**store.read_settings(), "source": str(path)}
    from pytest_cua.results.compare.summaries import CompareError, load_summary

    try:
        summary = load_summary(path)
    except CompareError as exc:
        raise TablesError(str(exc)) from None
    return list(summary["tasks"]), {**(summary.get("run") or {}), "source": str(path)}


def demo_steps(paths: Iterable[str | Path]) -> dict[str, int]:
    """Each task's demonstration length in steps, by task id, from task files or folders of them (every
    ``*.json`` below a folder): the actions of ``demonstration.actions`` except waits and the terminal one.
    A task file that is not JSON, or a demonstration that is not a list, is an error naming the file."""
    found: dict[str, int] = {}
    for root in paths:
        root = Path(root)
        if not root.exists():
            raise TablesError(f"{root}: no such file or folder (--demos)")
        for file in sorted(root.rglob("*.json")) if root.is_dir() else [root]:
            for task in _task_objects(file):
                demo = task.get("demonstration")
                actions = demo.get("actions") if isinstance(demo, Mapping) else None
                if actions is None:
                    continue
                if not isinstance(actions, list):
                    raise TablesError(f"{file}: task {task.get('id')!r}: field 'demonstration.actions' is not a list")
                found.setdefault(str(task["id"]), sum(1 for a in actions
                                                      if not (isinstance(a, Mapping) and a.get("type") in NOT_STEPS)))
    return found


def _task_objects(file: Path) -> list[Mapping[str, Any]]:
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise TablesError(f"{file}: cannot be read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise TablesError(f"{file}: not valid JSON: {exc.msg} at line {exc.lineno}") from None
    if isinstance(data, Mapping) and isinstance(data.get("tasks"), list):
        data = data["tasks"]
    items = data if isinstance(data, list) else [data]
    return [t for t in items if isinstance(t, Mapping) and "id" in t]


# --- groupings ------------------------------------------------------------------------------------------------

def marker_values(record: Record, prefix: str) -> list[str]:
    """The values of the record's markers that start with ``prefix`` (``app_calc`` -> ``calc``)."""
    return sorted(m[len(prefix):] for m in record.get("markers") or [] if str(m).startswith(prefix))


def observation_setting(record: Record, run: Mapping[str, Any]) -> str | None:
    """The observation setting a record ran under, where the record (at its top, under ``agent`` or
    ``environment``) or the run's settings name it: a model agent's record says ``agent.observation.setting``
    (``som+screenshot``); a list of kinds is joined with '+'. None when nothing says (replay, noop)."""
    for place in (record, record.get("agent") or {}, record.get("environment") or {}, run):
        for key in OBSERVATION_KEYS:
            value = place.get(key) if isinstance(place, Mapping) else None
            if isinstance(value, (list, tuple)) and value:
                return "+".join(str(v) for v in value)
            if isinstance(value, Mapping) and (value.get("setting") or value.get("name")):
                return str(value.get("setting") or value.get("name"))  # a model agent's: {"setting": ...}
            if isinstance(value, str) and value:
                return value
    return None


def _level(record: Record) -> str:
    return str(record.get("level") or "-")


def _levels(records: Sequence[Record]) -> list[str]:
    present = {_level(r) for r in records}
    return [lv for lv in LEVELS if lv in present] + sorted(present - set(LEVELS))


def _task_key(record: Record) -> str:
    return f"{record.get('suite') or '-'}/{record.get('id')}"


def _trial(record: Record) -> int:
    trial = record.get("trial")
    return int(trial) if isinstance(trial, int) and not isinstance(trial, bool) else 1


# --- figures --------------------------------------------------------------------------------------------------

def success(records: Sequence[Record]) -> dict[str, Any]:
    """Success of a group over trials: each trial's rate (passed / scored episodes of that trial), their mean and
    standard error (None with fewer than two trials that scored), n the trials that scored; counts beside."""
    by_trial: dict[int, list[Record]] = {}
    for r in records:
        if r.get("outcome") in SCORED:
            by_trial.setdefault(_trial(r), []).append(r)
    rates = [sum(r["outcome"] == "passed" for r in rs) / len(rs) for _, rs in sorted(by_trial.items())]
    mean, se = mean_se(rates)
    outcomes = [r.get("outcome") for r in records]
    return {"tasks": len({_task_key(r) for r in records}), "episodes": len(records),
            "passed": outcomes.count("passed"), "failed": outcomes.count("failed"),
            "partial": outcomes.count("partial"), "errors": outcomes.count("error"),
            "skipped": outcomes.count("skipped"), "n": len(rates),
            "trial_rates": [round(x, 6) for x in rates], "mean": _round(mean), "se": _round(se),
            "mean_steps": _mean(r.get("steps") for r in records if r.get("outcome") != "skipped")}


def _round(value: float | None, digits: int = 6) -> float | None:
    return round(value, digits) if value is not None else None


def _mean(values: Iterable[Any]) -> float | None:
    nums = [float(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return round(statistics.fmean(nums), 3) if nums else None


def _by_level(records: Sequence[Record], levels: Sequence[str],
              figure: Callable[[Sequence[Record]], dict[str, Any]]) -> dict[str, dict[str, Any]]:
    out = {lv: figure([r for r in records if _level(r) == lv]) for lv in levels}
    out[ALL] = figure(records)
    return out


def results_table(records: Sequence[Record]) -> dict[str, dict[str, Any]]:
    """Success per level and in all (``success``)."""
    return _by_level(records, _levels(records), success)


def group_table(records: Sequence[Record], groups_of: Callable[[Record], Sequence[str]]) -> dict[str, Any]:
    """Success per group (a record in each of ``groups_of(record)``) and level: ``{group: {level: figures}}``;
    records with no group are left out and counted in ``ungrouped``."""
    levels = _levels(records)
    buckets: dict[str, list[Record]] = {}
    ungrouped = 0
    for r in records:
        names = groups_of(r)
        ungrouped += not names
        for name in names:
            buckets.setdefault(name, []).append(r)
    return {"levels": levels, "ungrouped": ungrouped,
            "rows": {name: _by_level(rs, levels, success) for name, rs in sorted(buckets.items())}}


def task_table(records: Sequence[Record], steps: Mapping[str, int] | None,
               replay: Sequence[Record] | None) -> dict[str, dict[str, Any]]:
    """Per level: the run's tasks; ``demo_steps`` mean over those of them with a demonstration (None without
    ``steps``); ``replay_s`` mean episode seconds (``times.wall_s``) of the passed episodes of ``replay`` (a replay
    run's records, None without) of the run's tasks; the paper's human figures."""
    ids = {lv: {str(r.get("id")) for r in records if _level(r) == lv} for lv in _levels(records)}
    ids[ALL] = {str(r.get("id")) for r in records}
    out: dict[str, dict[str, Any]] = {}
    for lv, tasks in ids.items():
        counted = [steps[t] for t in sorted(tasks) if steps is not None and t in steps]
        passed = [r for r in replay or [] if str(r.get("id")) in tasks and r.get("outcome") == "passed"]
        human = PAPER_HUMAN.get(lv)
        out[lv] = {"tasks": len(tasks), "demos": len(counted) if steps is not None else None,
                   "demo_steps": _mean(counted) if counted else None,
                   "replay_episodes": len(passed) if replay is not None else None,
                   "replay_s": _mean((r.get("times") or {}).get("wall_s") for r in passed),
                   "paper_steps": human[0] if human else None, "paper_s": human[1] if human else None}
    return out


def usage_table(records: Sequence[Record]) -> dict[str, dict[str, Any]]:
    """Tokens and cost per level: totals, and means per episode that ran (skipped ones did not)."""
    def usage(rs: Sequence[Record]) -> dict[str, Any]:
        ran = [r for r in rs if r.get("outcome") != "skipped"]
        tin = sum(int(r.get("tokens_in") or 0) for r in rs)
        tout = sum(int(r.get("tokens_out") or 0) for r in rs)
        cost = sum(float(r.get("cost_usd") or 0.0) for r in rs)
        return {"episodes": len(ran), "tokens_in": tin, "tokens_out": tout, "cost_usd": round(cost, 6),
                "tokens_per_episode": round((tin + tout) / len(ran), 1) if ran else None,
                "cost_per_episode": round(cost / len(ran), 6) if ran else None}

    return _by_level(records, _levels(records), usage)


def build_tables(records: Sequence[Record], run: Mapping[str, Any], *, steps: Mapping[str, int] | None = None,
                 replay: Sequence[Record] | None = None) -> dict[str, Any]:
    """Every table of the run as data. ``replay``: a replay run's records for Table 2's seconds (default: the
    run's own when its agent is replay)."""
    if not records:
        raise TablesError(f"{run.get('source', 'the run')}: no task record")
    if replay is None and _agent_name(records, run) == "replay":
        replay = records
    trials = max((_trial(r) for r in records), default=1)
    observed = [observation_setting(r, run) for r in records]
    return {
        "run": {"source": run.get("source"), "agent": _agent_name(records, run), "trials": trials,
                "tasks": len({_task_key(r) for r in records}), "episodes": len(records)},
        "task_table": task_table(records, steps, replay),
        "results": results_table(records),
        "by_program": group_table(records, lambda r: marker_values(r, GROUP_MARKERS["program"])),
        "by_domain": group_table(records, lambda r: marker_values(r, GROUP_MARKERS["domain"])),
        "by_observation": group_table(records, lambda r: [observation_setting(r, run) or "not recorded"]),
        "observation_recorded": any(o is not None for o in observed),
        "markers_recorded": any("markers" in r for r in records),
        "usage": usage_table(records),
    }


def _agent_name(records: Sequence[Record], run: Mapping[str, Any]) -> str | None:
    names = {str((r.get("agent") or {}).get("name")) for r in records if (r.get("agent") or {}).get("name")}
    if len(names) == 1:
        return names.pop()
    agent = run.get("agent")
    return str(agent) if isinstance(agent, str) else (", ".join(sorted(names)) if names else None)
