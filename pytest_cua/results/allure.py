"""Allure results for a task: one Allure step per agent step (screenshot attached, actions and reasoning),
the milestones as steps with their weights and results, labels (suite, persona, difficulty, level, template,
agent, environment), the instruction as description, the Playwright trace of a failed task and the video.

The episode runs in a fixture (setup), the evaluation too; the steps are emitted from the recorded
trajectory during the test call (``TaskResult.check()`` calls ``emit_task``) so they show inside the test,
and the test's result starts when its setup started (``stretch_to_setup``), so Allure shows the task's real
duration (allure-pytest starts the clock at the call).
Everything is a no-op unless allure-pytest is active (``--alluredir`` given); every text is redacted.

``emit_task`` also applies ``--cua-trace retain-on-failure``: a passed task's trace file is deleted.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from pytest_cua.redaction import redact, redact_bytes, redact_data

MAX_STEP_NAME = 180


def allure_active() -> bool:
    """True when allure-pytest is collecting results in this process (``--alluredir`` given)."""
    try:
        import allure_commons
    except ImportError:
        return False
    try:
        plugins = allure_commons.plugin_manager.get_plugins()
    except Exception:  # noqa: BLE001
        return False
    return any(type(p).__name__ == "AllureListener" for p in plugins)


def _listener() -> Any:
    """allure-pytest's listener of this process, or None when Allure is inactive."""
    try:
        import allure_commons

        plugins = allure_commons.plugin_manager.get_plugins()
    except Exception:  # noqa: BLE001 - allure not installed, or its plugin manager changed
        return None
    return next((p for p in plugins if type(p).__name__ == "AllureListener"), None)


def stretch_to_setup(setup_started_ms: int, *, stop_now: bool = False) -> bool:
    """Make the running test's Allure result start when its setup started, not when its call did: a task's
    episode and evaluation run in fixture setup, so allure-pytest's own start (set as the call begins) would
    leave only the call's milliseconds. ``stop_now`` also ends the result now (a setup that errored or
    skipped, after which no call sets the stop). Returns whether there was a result to change."""
    listener = _listener()
    if listener is None:
        return False
    try:
        result = listener.allure_logger.get_test(None)  # the test in progress (the last scheduled one)
    except Exception:  # noqa: BLE001 - an allure-pytest without this reporter API
        return False
    if result is None:
        return False
    result.start = min(int(result.start or setup_started_ms), int(setup_started_ms))
    if stop_now:
        result.stop = max(int(result.stop or 0), now_ms())
    return True


PRIVATE_FIXTURE_PREFIX = "_cua_"


_hider: Any = None


def _keep_public(fixtures: Any) -> Any:
    return [f for f in fixtures if not str(getattr(f, "name", "")).startswith(PRIVATE_FIXTURE_PREFIX)]


def hide_private_fixtures() -> None:
    """Register with allure-commons, once per process, a plugin that leaves the plugin's private fixtures
    (``_cua_*``: the environment pool, the session's agent, ...) out of a test's set-up and tear-down lists,
    which keep the documented ones (``cua_env``, ``cua_agent``, ``cua_episode``, ...). It runs before the writer
    of each fixture's container. Nothing happens without allure installed."""
    global _hider
    try:
        import allure_commons
    except ImportError:
        return
    if _hider is None:
        class HidePrivateFixtures:
            @allure_commons.hookimpl(tryfirst=True)
            def report_container(self, container: Any) -> None:
                for side in ("befores", "afters"):
                    if getattr(container, side, None):
                        setattr(container, side, _keep_public(getattr(container, side)))

        _hider = HidePrivateFixtures()
    if not allure_commons.plugin_manager.is_registered(_hider):
        allure_commons.plugin_manager.register(_hider, "pytest-cua-hide-private-fixtures")


def now_ms() -> int:
    """The current time as Allure writes it (milliseconds since the epoch)."""
    import time

    return int(round(time.time() * 1000))


class _StepFailed(AssertionError):
    """Raised inside an Allure step to mark it failed; caught right outside."""


def _name(text: str) -> str:
    text = redact(" ".join(text.split()))
    return text if len(text) <= MAX_STEP_NAME else text[: MAX_STEP_NAME - 3] + "..."


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _step_view(step: Any) -> dict[str, Any]:
    """A recorded step (StepRecord or LoadedStep) as plain data for the emitter."""
    actions = _get(step, "actions", []) or []
    results = _get(step, "results", []) or []
    result_dicts = [r.to_dict() if hasattr(r, "to_dict") else dict(r) for r in results]
    observation = _get(step, "observation")
    screenshot = None
    text_obs: dict[str, Any] = {}
    if observation is not None and hasattr(observation, "text_parts"):
        screenshot = observation.screenshot
        text_obs = observation.text_parts()
    elif isinstance(observation, Mapping):
        text_obs = dict(observation)
        if hasattr(step, "screenshot_bytes"):
            screenshot = step.screenshot_bytes()
    usage = _get(step, "usage")
    return {
        "index": _get(step, "index", 0),
        "actions": actions,
        "results": result_dicts,
        "reasoning": _get(step, "reasoning", "") or "",
        "raw": _get(step, "raw"),
        "screenshot": screenshot,
        "observation": text_obs,
        "error": _get(step, "error"),
        "tokens_in": usage.tokens_in if usage is not None else _get(step, "tokens_in", 0),
        "tokens_out": usage.tokens_out if usage is not None else _get(step, "tokens_out", 0),
        "cost_usd": usage.cost_usd if usage is not None else _get(step, "cost_usd", 0.0),
        "agent_s": _get(step, "agent_s", 0.0), "env_s": _get(step, "env_s", 0.0),
        "started_at": _get(step, "started_at", 0.0) or 0.0,
        "model": (_get(step, "extra", None) or {}).get("model"),
        "model_image": (_get(step, "images", None) or {}).get("model"),
    }


def emit_episode(trajectory_steps: Sequence[Any], milestones: Iterable[Any], task: Any, agent: Any = None,
                 env: Any = None, *, artifacts: Mapping[str, Any] | None = None, failed: bool = False,
                 trace_mode: str = "off", answer: str | None = None, end: str | None = None) -> bool:
    """Emit one task's Allure steps, labels, description and attachments; False when Allure is inactive.

    ``trajectory_steps``: StepRecords or LoadedSteps. ``milestones``: objects or dicts with name, weight,
    passed, detail. ``agent`` / ``env``: dicts (``describe()``) or objects with ``describe()``.
    ``artifacts``: ``{"trace": path, "video": path}``; the trace is attached when ``failed`` (or
    ``trace_mode == "on"``), the video always."""
    if not allure_active():
        return False
    import allure

    _labels(allure, task, agent, env)
    for step in trajectory_steps:
        _emit_step(allure, _step_view(step))
    if answer is not None or end:
        with allure.step(_name(f"episode ended: {end or '?'}" + (f"; answer: {answer}" if answer is not None else ""))):
            pass
    _emit_milestones(allure, list(milestones))
    artifacts = artifacts or {}
    trace = artifacts.get("trace")
    if trace and os.path.exists(trace) and (failed or trace_mode == "on"):
        allure.attach.file(str(trace), name="playwright-trace.zip", attachment_type=allure.attachment_type.ZIP,
                           extension="zip")
    video = artifacts.get("video")
    if video and os.path.exists(video):
        allure.attach.file(str(video), name="video", attachment_type=allure.attachment_type.WEBM,
                           extension="webm")
    return True


def _describe(obj: Any) -> dict[str, Any]:
    if obj is None:
        return {}
    if isinstance(obj, Mapping):
        return dict(obj)
    if hasattr(obj, "describe"):
        try:
            return dict(obj.describe())
        except Exception:  # noqa: BLE001
            return {}
    return {"name": str(obj)}


def _labels(allure: Any, task: Any, agent: Any, env: Any) -> None:
    suite = _get(task, "suite")
    if suite:
        allure.dynamic.suite(str(suite))
    for key in ("persona", "difficulty", "level", "template"):
        value = _get(task, key)
        if value:
            allure.dynamic.label(key, str(value))
    tags = _get(task, "tags") or ()
    for tag in tags:
        allure.dynamic.tag(str(tag))
    a = _describe(agent)
    if a.get("name"):
        allure.dynamic.label("agent", str(a["name"]) + (f":{a['model']}" if a.get("model") else ""))
    e = _describe(env)
    if e.get("name"):
        allure.dynamic.label("environment", str(e["name"]))
    description = task.description() if hasattr(task, "description") else _get(task, "instruction")
    if description:  # the instruction, and the knowledge card when the task has one
        allure.dynamic.description(redact(str(description)))
    task_id = _get(task, "id")
    if task_id:
        allure.dynamic.label("task", str(task_id))
        # the parametrized Task shows as its id, not its repr (ground truth and demonstration stay out)
        allure.dynamic.parameter("cua_task", str(task_id))


def _emit_step(allure: Any, view: dict[str, Any]) -> None:
    actions = view["actions"]
    described = "; ".join(a.describe() if hasattr(a, "describe") else str(a) for a in actions) or "no action"
    errors = [r.get("error") for r in view["results"] if not r.get("ok", True) and r.get("error")]
    if view["error"]:
        errors.insert(0, view["error"])
    reasoning = view["reasoning"].strip()
    name = f"step {view['index']}: {described}"
    emitted = None
    try:
        with allure.step(_name(name)):
            emitted = _current_step()
            if view["screenshot"]:
                allure.attach(view["screenshot"], name="screenshot", attachment_type=allure.attachment_type.PNG)
            if view["model_image"]:
                jpeg = view["model_image"][:3] == b"\xff\xd8\xff"
                allure.attach(view["model_image"], name="image sent to the model",
                              attachment_type=allure.attachment_type.JPG if jpeg else allure.attachment_type.PNG)
            if reasoning:
                allure.attach(redact(reasoning), name="reasoning", attachment_type=allure.attachment_type.TEXT)
            if view["raw"]:
                allure.attach(redact(str(view["raw"])), name="model output", attachment_type=allure.attachment_type.JSON)
            detail = {"actions": [a.to_dict() if hasattr(a, "to_dict") else a for a in actions],
                      "results": view["results"], "tokens_in": view["tokens_in"], "tokens_out": view["tokens_out"],
                      "cost_usd": view["cost_usd"], "agent_s": view["agent_s"], "env_s": view["env_s"]}
            if view["model"]:
                detail["model"] = view["model"]
            allure.attach(json.dumps(redact_data(detail), indent=1, default=str), name="actions",
                          attachment_type=allure.attachment_type.JSON)
            checks = (view["model"] or {}).get("safety_checks")
            if checks:  # a vendor's safety checks on the step's calls, each with what was decided
                allure.attach(json.dumps(redact_data(checks), indent=1, default=str), name="vendor safety checks",
                              attachment_type=allure.attachment_type.JSON)
            obs = view["observation"]
            text = "\n".join(f"{k}: {obs[k]}" for k in ("url", "title", "last_error") if obs.get(k))
            if obs.get("axtree"):
                text += "\n\n" + str(obs["axtree"])
            if text.strip():
                allure.attach(redact(text), name="observation", attachment_type=allure.attachment_type.TEXT)
            if errors:
                raise _StepFailed(redact("; ".join(str(e) for e in errors)))
    except _StepFailed:
        pass
    finally:
        _set_times(emitted, view["started_at"], float(view["agent_s"] or 0.0) + float(view["env_s"] or 0.0))


def _current_step() -> Any:
    """The Allure step being written in this process (allure-commons' step result), or None."""
    listener = _listener()
    try:
        from allure_commons.model2 import TestStepResult

        return listener.allure_logger.get_last_item(TestStepResult) if listener is not None else None
    except Exception:  # noqa: BLE001 - an allure-commons without this reporter API: the emission times stay
        return None


def _set_times(step: Any, started_at: float, seconds: float) -> None:
    """Give an emitted step the time it really ran (the steps are written after the episode, when the test's
    call reports it: without this each would show the few milliseconds its writing took)."""
    if step is None or not started_at:
        return
    step.start = int(round(started_at * 1000))
    step.stop = int(round((started_at + max(seconds, 0.0)) * 1000))


def _earned(m: Any) -> float:
    weight, credit = float(_get(m, "weight", 0.0) or 0.0), _get(m, "credit", None)
    if _get(m, "skipped", False):
        return 0.0
    return weight * float(credit) if credit is not None else weight if _get(m, "passed") else 0.0


def _emit_milestones(allure: Any, milestones: list[Any]) -> None:
    """The milestones readable at a glance: the task's table (milestone, weight, held, earned, why) attached
    to the result, and one step "milestones: 2 of 3 held, score 0.60 of 1.00" holding a step per milestone
    (failed when one failed)."""
    if not milestones:
        return
    held = sum(bool(_get(m, "passed")) for m in milestones)
    score = sum(_earned(m) for m in milestones)
    allure.attach(_milestone_table(milestones, score), name="milestones",
                  attachment_type=allure.attachment_type.HTML)
    title = f"milestones: {held} of {len(milestones)} held, score {score:.2f} of 1.00"
    try:
        with allure.step(_name(title)):
            for m in milestones:
                _emit_milestone(allure, m)
            if held < len(milestones):
                raise _StepFailed(f"{len(milestones) - held} milestone(s) not held")
    except _StepFailed:
        pass


def _milestone_table(milestones: list[Any], score: float) -> str:
    """The milestone table as a small HTML page (every cell escaped, secrets redacted)."""
    from html import escape

    rows = []
    for m in milestones:
        passed, skipped, credit = bool(_get(m, "passed")), bool(_get(m, "skipped", False)), _get(m, "credit", None)
        held = "skipped" if skipped else "yes" if passed else f"{float(credit):.2f}" if credit else "NO"
        colour = "#2e844a" if passed else "#706e6b" if skipped else "#ba0517"
        detail = str(_get(m, "detail", "") or _get(m, "message", "") or "")
        rows.append(f"<tr><td>{escape(redact(str(_get(m, 'name', '?'))))}</td>"
                    f"<td>{float(_get(m, 'weight', 0.0) or 0.0):.2f}</td>"
                    f"<td style=\"color:{colour};font-weight:bold\">{held}</td><td>{_earned(m):.2f}</td>"
                    f"<td>{escape(redact(detail))}</td></tr>")
    return ("<!doctype html><meta charset=\"utf-8\"><style>body{font:13px sans-serif}table{border-collapse:"
            "collapse}td,th{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}</style>"
            f"<p><b>score {score:.2f} of 1.00</b></p><table><tr><th>milestone</th><th>weight</th><th>held</th>"
            f"<th>earned</th><th>why</th></tr>{''.join(rows)}</table>")


def _emit_milestone(allure: Any, m: Any) -> None:
    name, weight, passed = _get(m, "name", "?"), float(_get(m, "weight", 0.0) or 0.0), bool(_get(m, "passed"))
    detail = str(_get(m, "detail", "") or _get(m, "message", "") or "")
    title = f"milestone: {name} (weight {weight:g}): {'passed' if passed else 'failed'}"
    try:
        with allure.step(_name(title)):
            if detail:
                allure.attach(redact(detail), name="detail", attachment_type=allure.attachment_type.TEXT)
            if not passed:
                raise _StepFailed(redact(detail or f"milestone {name} failed"))
    except _StepFailed:
        pass


def prune_artifacts(artifacts: Mapping[str, Any] | None, *, failed: bool, trace_mode: str) -> None:
    """``--cua-trace retain-on-failure``: delete the trace of a task that passed."""
    if not artifacts or trace_mode != "retain-on-failure" or failed:
        return
    trace = artifacts.get("trace")
    if trace and os.path.exists(trace):
        try:
            os.remove(trace)
        except OSError:
            pass


def emit_task(result: Any) -> bool:
    """Called by ``TaskResult.check()`` in the test call: emit the task's Allure report from its recorded
    trajectory and score card, and prune a passed task's trace. Returns whether Allure was active."""
    task, card, episode, env = result.task, result.card, result.episode, result.env
    decided_by = getattr(result, "decided_by", None)
    if decided_by:  # --cua-scoring: the deciding scoring's milestones (none where its evaluator would crash)
        card = result.others[decided_by].card or card
    recorder = getattr(episode, "recorder", None)
    steps = list(getattr(recorder, "steps", []) or [])
    summary = getattr(recorder, "summary", {}) or {}
    failed = not bool(getattr(result, "success", getattr(card, "success", False)))
    _scoring_parameters(result)
    artifacts = getattr(env, "last_artifacts", None) or {}
    options = getattr(env, "options", None)
    trace_mode = getattr(options, "trace", "off") if options is not None else "off"
    agent = summary.get("agent") or None
    try:
        active = emit_episode(steps, getattr(card, "results", []), task, agent, env, artifacts=artifacts,
                              failed=failed, trace_mode=trace_mode, answer=getattr(episode, "answer", None),
                              end=getattr(episode, "end", None))
    finally:
        prune_artifacts(artifacts, failed=failed, trace_mode=trace_mode)
    return active


def _scoring_parameters(result: Any) -> None:
    """The suite's other scorings as parameters of the Allure result (``score_scuba 0.75``, with ``crash``
    where that scoring's evaluator would crash), and which one decided."""
    others = getattr(result, "others", None) or {}
    if not others:
        return
    try:
        import allure
    except ModuleNotFoundError:
        return
    for name, other in others.items():  # excluded from Allure's history id: a score is no test parameter
        allure.dynamic.parameter(f"score_{name}", f"{other.score:.2f}" + (f" (crash: {other.crash})" if other.crash
                                                                           else ""), excluded=True)
    allure.dynamic.parameter("scored by", getattr(result, "decided_by", None) or "the suite's own scoring",
                             excluded=True)


def redact_file(path: str | Path) -> None:
    """Redact a text file in place (used for results written by other tools)."""
    p = Path(path)
    p.write_bytes(redact_bytes(p.read_bytes()))


def emit_crash(results_dir: str | Path, record: Mapping[str, Any]) -> bool:
    """An Allure result for a test whose worker died under it (``worker_crash``): written by the xdist
    controller, since the dead worker wrote none. Status ``broken`` (an error, not a failure), with the task's
    labels and the crash message. False when allure-python-commons is not installed."""
    try:
        from allure_commons.logger import AllureFileLogger
        from allure_commons.model2 import Label, Parameter, Status, StatusDetails, TestResult
        from allure_commons.utils import md5, uuid4
    except ModuleNotFoundError:
        return False
    nodeid = str(record["nodeid"])
    path, _, name = nodeid.partition("::")
    function = name.split("[", 1)[0]
    module = path[:-3].replace("/", ".") if path.endswith(".py") else path.replace("/", ".")
    full_name = f"{module}#{function}"
    labels = [Label(name="suite", value=str(record.get("suite") or module)), Label(name="framework", value="pytest"),
              Label(name="task", value=str(record.get("id"))), Label(name="error_kind", value="worker_crash")]
    for key in ("persona", "difficulty", "level", "template"):
        if record.get(key):
            labels.append(Label(name=key, value=str(record[key])))
    agent = (record.get("agent") or {}).get("name")
    if agent:
        labels.append(Label(name="agent", value=str(agent)))
    stamp = now_ms()
    result = TestResult(uuid=uuid4(), name=name or nodeid, fullName=full_name, testCaseId=md5(full_name),
                        historyId=md5(nodeid), status=Status.BROKEN, start=stamp, stop=stamp, labels=labels,
                        parameters=[Parameter(name="cua_task", value=str(record.get("id")))],
                        statusDetails=StatusDetails(message=redact(str(record.get("error") or "worker crashed"))))
    AllureFileLogger(Path(results_dir))._report_item(result)
    return True
