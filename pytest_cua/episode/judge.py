"""The rubric judge: a model that grades an artifact (a rendering of it) against rubric items, pass or fail each.

``--cua-judge MODEL`` names the judge as ``--agent`` names a model agent (``claude-sonnet-5``, ``gpt-5.5``,
``openai:gpt-5``, ``openai-compatible:MODEL``); it goes through the model agents' providers and adapters
(``pytest_cua.agents.models``): the same wire protocols, API keys, retries, usage and price table. Nothing the
judge writes is executed; its answer is data, parsed defensively.

``--cua-judge-url URL`` is the judge's server (a gateway, vLLM); default: the vendor's. The agent's
``--cua-model-url`` is not used for the judge: they are usually different models on different servers.

An evaluator asks for rubric milestones with :func:`rubric_checks`: one milestone per rubric item, all items
judged in one call on one rendering. Without ``--cua-judge`` every rubric milestone is *skipped* with the reason
(``MilestoneSkipped``): the task is then partially scored, never passed. A judge answer that cannot be read
(no JSON, an item missing, a verdict that is neither pass nor fail) is an evaluator error naming the judge
model, not the agent's failure. The judge's reason is each milestone's detail.

The judge's usage is kept per task (``take_usage``, read into the task record as ``judge``) and its cost goes
into the run's cost ledger (``--cua-max-cost``) under the task key ``judge:<task id>``.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

import pytest

from pytest_cua.tasks.scoring import MilestoneSkipped, note

if TYPE_CHECKING:
    from pytest_cua.agents.base import Usage
    from pytest_cua.agents.models.adapters.base import Adapter
    from pytest_cua.tasks.suite import EvalContext
    from pytest_cua.tasks.task import Task

NO_JUDGE = "no --cua-judge given"
JUDGE_PROMPT_VERSION = "judge-1"
MAX_IMAGE_SIDE = 1568  # within what every vendor looks at without scaling it down again

SYSTEM = """You grade a file that a computer-use agent created for a task. You see the task, a rendering of \
the file and numbered rubric items. Judge each item on what the rendering shows, strictly: an item passes only \
when the rendering clearly meets it.

Answer with one JSON object and nothing else:
{"items": [{"id": 1, "pass": true, "reason": "one short sentence"}, ...]}
with one entry per rubric item, in order, "pass" true or false."""

Check = tuple[str, Callable[[], None]]


class JudgeError(Exception):
    """The judge's answer cannot be used, or the judge could not be reached: an evaluator error (never the
    agent's failure). The message names the judge model."""

    error_kind = "evaluator"


@dataclass(frozen=True)
class Verdict:
    passed: bool
    reason: str


# --- options and configuration -----------------------------------------------------------------------------

def add_judge_options(group: Any) -> None:
    """``--cua-judge MODEL`` and ``--cua-judge-url URL`` (ini keys ``cua_judge``, ``cua_judge_url``); a group
    that has them already is left as it is."""
    if any("--cua-judge" in option.names() for option in getattr(group, "options", [])):
        return
    group.addoption("--cua-judge", dest="cua_judge", default=None, metavar="MODEL",
                    help="model that judges rubric milestones (open creation tasks), named as for --agent: "
                         "claude-sonnet-5, gpt-5.5, openai-compatible:MODEL ...; without it rubric milestones are "
                         "skipped and their tasks partially scored (ini: cua_judge)")
    group.addoption("--cua-judge-url", dest="cua_judge_url", default=None, metavar="URL",
                    help="base URL of the judge's API (default: the vendor's) (ini: cua_judge_url)")
    parser = getattr(group, "parser", None)
    if parser is not None:
        parser.addini("cua_judge", "default model for --cua-judge", default="")
        parser.addini("cua_judge_url", "default base URL for --cua-judge-url", default="")


def pytest_addoption(parser: pytest.Parser) -> None:
    """Loaded as a plugin (``-p pytest_cua.episode.judge``), this module adds the options to pytest-cua's group."""
    add_judge_options(parser.getgroup("cua", "computer-use agent benchmarks (pytest-cua)"))


def _setting(config: pytest.Config, dest: str, ini: str) -> tuple[str | None, str]:
    value = getattr(config.option, dest, None)
    if value:
        return str(value), f"--{dest.replace('_', '-')}"
    try:
        raw = config.getini(ini)
    except ValueError:
        return None, ""
    return (str(raw), f"ini key {ini} = {raw!r}") if raw else (None, "")


_lock = threading.Lock()
_current: "Judge | None" = None
_usage: dict[str, "Usage"] = {}


def configure_judge(config: pytest.Config, *, worker_id: str = "master", ledger_path: Path | None = None,
                    max_cost: float | None = None, prices: Path | None = None) -> "Judge | None":
    """Resolve ``--cua-judge`` for this process (a usage error names the option and what is wrong) and make it
    the judge that :func:`rubric_checks` uses; None (and no judge) when it is not given."""
    global _current
    text, source = _setting(config, "cua_judge", "cua_judge")
    judge = None
    if text:
        url, _ = _setting(config, "cua_judge_url", "cua_judge_url")
        try:
            judge = Judge.create(text, base_url=url, prices=prices, worker_id=worker_id, ledger_path=ledger_path,
                                 max_cost=max_cost)
        except ValueError as exc:
            raise pytest.UsageError(f"{source}: {exc}") from None
    with _lock:
        _current = judge
        _usage.clear()
    return judge


def current_judge() -> "Judge | None":
    """The judge of this process (``--cua-judge``), or None."""
    return _current


def take_usage(task_id: str) -> dict[str, Any] | None:
    """What judging ``task_id`` cost (model, usage, cost in USD), once: the task record's ``judge`` field."""
    with _lock:
        usage = _usage.pop(task_id, None)
        judge = _current
    if usage is None:
        return None
    return {"model": judge.label if judge is not None else None, "usage": usage.to_dict(),
            "cost_usd": round(usage.cost_usd, 6)}


# --- the judge ------------------------------------------------------------------------------------------------

class Judge:
    """One judge model behind a provider's adapter (its own conversation per call)."""

    def __init__(self, label: str, model: str, build: Callable[[], "Adapter"], *, worker_id: str = "master",
                 ledger_path: Path | None = None, max_cost: float | None = None) -> None:
        self.label = label
        self.model = model
        self._build = build
        self._adapter: "Adapter | None" = None
        self.worker_id = worker_id
        self.ledger_path = ledger_path
        self.max_cost = max_cost

    @classmethod
    def create(cls, text: str, *, base_url: str | None = None, prices: Path | None = None,
               worker_id: str = "master", ledger_path: Path | None = None, max_cost: float | None = None) -> "Judge":
        """The judge ``text`` names (as ``--agent`` names a model); ValueError says what is missing."""
        from pytest_cua.agents.models.providers import Provider, ProviderError
        from pytest_cua.agents.models.settings import ModelSettings
        from pytest_cua.agents.registry import AgentRegistry, AgentSpec, UnknownAgent

        registry = AgentRegistry()
        try:
            found = registry.resolve(text)
            provider = registry._load(found.provider)
        except UnknownAgent as exc:
            raise ValueError(str(exc)) from None
        if not (isinstance(provider, type) and issubclass(provider, Provider)):
            raise ValueError(f"{text!r} is not a model (a judge is a model of a provider: claude-sonnet-5, "
                             f"gpt-5.5, openai-compatible:MODEL ...)")
        settings = ModelSettings(base_url=base_url.rstrip("/") if base_url else None, temperature=0.0,
                                 prices=prices)
        spec = AgentSpec(text, found.provider, found.model, {"model_settings": settings})
        try:
            model, _, settings, key, url = provider._plan(spec)
        except ProviderError as exc:
            raise ValueError(str(exc).replace("--cua-model-url", "--cua-judge-url")) from None
        from pytest_cua.redaction import register_secret

        if key not in ("EMPTY",):
            register_secret(key)
        client = provider._client(settings, key, url)
        price_table = provider._prices(settings)

        def build() -> "Adapter":
            return provider.adapter_class()(model, client, provider._generation(model, settings), keep_images=1,
                                            price=price_table.cost)

        return cls(text, model, build, worker_id=worker_id, ledger_path=ledger_path, max_cost=max_cost)

    def judge(self, task: "Task", items: Sequence[str], image: bytes, *, context: str = "") -> list[Verdict]:
        """Grade ``image`` (PNG or JPEG bytes) against ``items``: one verdict per item, in order."""
        from pytest_cua.agents.models.conversation import UserTurn
        from pytest_cua.agents.models.coords import fit_within
        from pytest_cua.agents.models.images import VENDOR_LIMITS, image_size, prepare_image

        if self._adapter is None:
            self._adapter = self._build()
        adapter = self._adapter
        try:
            width, height = image_size(image)
            size = fit_within(width, height, MAX_IMAGE_SIDE, MAX_IMAGE_SIDE)
            prepared = prepare_image(image, size=size, limits=VENDOR_LIMITS.get(adapter.vendor))
        except Exception as exc:
            raise JudgeError(f"judge {self.label}: the rendering of task {task.id!r} is not an image the judge "
                             f"can be sent: {type(exc).__name__}: {exc}") from exc
        adapter.reset(SYSTEM, [])
        try:
            reply = adapter.send(UserTurn(text=judge_prompt(task, items, context), image=prepared),
                                 what=f"judge {self.label}, task {task.id}")
        except Exception as exc:
            raise JudgeError(f"judge {self.label}: the call failed: {type(exc).__name__}: {exc}") from exc
        self._charge(task.id, reply.usage)
        return parse_verdicts(reply.text or reply.reasoning, len(items), judge=self.label)

    def _ledger(self) -> Any:
        if self.ledger_path is None or self.max_cost is None:
            return None
        from pytest_cua.agents.models.ledger import CostLedger

        return CostLedger(self.ledger_path, self.max_cost)

    def budget_left(self) -> str | None:
        """Why the judge may not be called (the run's cost cap is reached), or None."""
        ledger = self._ledger()
        if ledger is not None and ledger.exhausted():
            return f"the run's cost cap is reached (${ledger.total():.4f} of --cua-max-cost ${ledger.cap_usd:g})"
        return None

    def _charge(self, task_id: str, usage: "Usage") -> None:
        from pytest_cua.agents.base import Usage

        with _lock:
            _usage.setdefault(task_id, Usage()).add(usage)
        ledger = self._ledger()
        if ledger is not None and usage.cost_usd > 0:
            ledger.add(usage.cost_usd, task_id=f"judge:{task_id}", worker=self.worker_id)


def judge_prompt(task: "Task", items: Sequence[str], context: str = "") -> str:
    """The user text of a judge call: the task, what the rendering shows, the numbered rubric."""
    lines = [f"Task given to the agent: {task.instruction}"]
    if context:
        lines.append(f"The image: {context}")
    lines.append("Rubric items:")
    lines += [f"{i}. {item}" for i, item in enumerate(items, 1)]
    lines.append(f'Answer with the JSON object only: {{"items": [...]}} with {len(items)} entries.')
    return "\n".join(lines)


# --- reading the answer ----------------------------------------------------------------------------------------

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S | re.I)
_TRUE = {"true", "pass", "passed", "yes", "met", "ok"}
_FALSE = {"false", "fail", "failed", "no", "not met"}


def parse_verdicts(text: str, count: int, *, judge: str) -> list[Verdict]:
    """The ``count`` verdicts in a judge's answer; JudgeError (naming ``judge`` and quoting the answer) when
    the answer is not a JSON object with one pass/fail entry per item."""
    shown = (text or "").strip()
    quoted = repr(shown[:300]) + ("..." if len(shown) > 300 else "")

    def bad(why: str) -> JudgeError:
        return JudgeError(f"judge {judge}: unusable answer ({why}): {quoted}")

    data = _json_in(shown)
    if data is None:
        raise bad("no JSON object")
    entries = data.get("items") if isinstance(data, dict) else data
    if isinstance(entries, dict):  # {"1": {...}, "2": {...}}
        entries = [{"id": k, **v} if isinstance(v, dict) else {"id": k, "pass": v} for k, v in entries.items()]
    if not isinstance(entries, list):
        raise bad("'items' is not a list")
    by_id: dict[int, Verdict] = {}
    for position, entry in enumerate(entries, 1):
        if not isinstance(entry, dict):
            raise bad(f"entry {position} is not an object")
        raw_id = entry.get("id", position)
        try:
            item = int(str(raw_id).strip().rstrip("."))
        except ValueError:
            raise bad(f"entry {position}: id {raw_id!r} is not an item number") from None
        if not 1 <= item <= count:
            raise bad(f"entry {position}: there is no rubric item {item} (1..{count})")
        if item in by_id:
            raise bad(f"rubric item {item} is judged twice")
        verdict = next((entry[k] for k in ("pass", "passed", "verdict", "met") if k in entry), None)
        passed = _truth(verdict)
        if passed is None:
            raise bad(f"rubric item {item}: verdict {verdict!r} is neither pass nor fail")
        reason = entry.get("reason", entry.get("explanation", ""))
        by_id[item] = Verdict(passed, str(reason if reason is not None else "").strip())
    missing = [i for i in range(1, count + 1) if i not in by_id]
    if missing:
        raise bad(f"no verdict for rubric item(s) {', '.join(map(str, missing))}")
    return [by_id[i] for i in range(1, count + 1)]


def _json_in(text: str) -> Any:
    """The first JSON object (or list) in ``text``: as a whole, in a code fence, or from the first brace to
    the last; None when there is none."""
    candidates = [text, *(m.group(1).strip() for m in _FENCE.finditer(text))]
    for opener, closer in (("{", "}"), ("[", "]")):
        start, end = text.find(opener), text.rfind(closer)
        if 0 <= start < end:
            candidates.append(text[start:end + 1])
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, (dict, list)):
            return value
    return None


def _truth(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        word = value.strip().lower()
        return True if word in _TRUE else False if word in _FALSE else None
    return None


# --- rubric milestones for evaluators ----------------------------------------------------------------------------

def rubric_checks(ctx: "EvalContext", items: Sequence[str], render: Callable[[], bytes], *,
                  context: str = "") -> list[Check]:
    """One milestone per rubric item (label ``rubric: <item>``), judged together on ``render()``'s image,
    which is called once, and only when a judge is configured (it may convert a file in the container:
    evaluators run before the rollback). ``render`` raising AssertionError (the artifact is missing) fails
    every item with its message. Without a judge, or once the run's cost cap is reached, every item is skipped
    with the reason."""
    judge = current_judge()
    memo: dict[str, Any] = {}

    def verdicts() -> list[Verdict]:
        if judge is None:
            raise MilestoneSkipped(NO_JUDGE)
        if "verdicts" not in memo:
            why = judge.budget_left()
            if why:
                memo["skip"] = why
            else:
                try:
                    memo["verdicts"] = judge.judge(ctx.task, list(items), render(), context=context)
                except AssertionError as exc:
                    memo["missing"] = str(exc)
        if "skip" in memo:
            raise MilestoneSkipped(memo["skip"])
        if "missing" in memo:
            raise AssertionError(memo["missing"])
        return memo["verdicts"]

    checks: list[Check] = []
    for index, item in enumerate(items):
        def check(index: int = index) -> None:
            verdict = verdicts()[index]
            assert judge is not None
            text = f"judge {judge.label}: {verdict.reason or ('pass' if verdict.passed else 'fail')}"
            if not verdict.passed:
                raise AssertionError(text)
            note(text)
        checks.append((f"rubric: {item}", check))
    return checks
