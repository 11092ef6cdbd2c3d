"""Human takeover without Docker: the ``--cua-human`` file (answers and scripted takeovers, JSON or YAML,
errors naming the file and the field), the episode's human steps on a small environment, the recorder's
translation of X events into actions, and the summary's figures with and without help."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from pytest_cua.actions import Action, ActionResult, Click, Point, Press, Type
from pytest_cua.agents.base import Agent, AgentContext, Turn
from pytest_cua.envs.docker.executor_record import compile_events
from pytest_cua.envs.base import Environment, Snapshot
from pytest_cua.episode.loop import Episode
from pytest_cua.episode.human import Human, HumanFileError, ScriptedHuman, human_file_option, parse_human_file
from pytest_cua.observations import Observation
from pytest_cua.results.summary import build_summary, format_table
from pytest_cua.tasks.task import Task

CLICK = {"type": "click", "target": {"x": 10, "y": 20}}


def write(tmp_path: Path, data: Any, name: str = "human.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


# --- the file -------------------------------------------------------------------------------------------------

def test_file_holds_answers_takeovers_and_both_by_id_or_glob(tmp_path: Path) -> None:
    path = write(tmp_path, {
        "calc-set-cell": [{"at_step": 0, "actions": [CLICK, {"type": "type", "text": "950\n"}]},
                          {"at_step": 3, "actions": [{"type": "hotkey", "keys": ["ctrl", "s"]}]}],
        "calc-*": {"answers": {"which cell?": "B4"}, "takeovers": [{"at_step": 1, "actions": [CLICK]}]},
        "*": {"*": "no idea"},
    })
    human = ScriptedHuman.from_file(path)
    own = human.takeovers_for("calc-set-cell")  # its own id wins over the glob
    assert [t.at_step for t in own] == [0, 3]
    assert own[0].actions == (Click(target=Point(10, 20)), Type(text="950\n"))
    assert [t.at_step for t in human.takeovers_for("calc-sum-q1")] == [1]
    assert human.takeovers_for("writer-title") == ()
    task = Task(id="calc-sum-q1", suite="s", instruction="i")
    assert human.answer(task, "which cell?") == "B4"
    assert human.answer(task, "anything else") == "no idea"  # the glob "calc-*" has no "*": then "*"
    assert Human(human, human).takeovers_for("calc-set-cell") == own


def test_yaml_file(tmp_path: Path) -> None:
    path = write(tmp_path, "r-*:\n  - at_step: 2\n    actions:\n      - {type: press, key: enter}\n", "h.yaml")
    assert ScriptedHuman.from_file(path).takeovers_for("r-mean")[0].actions == (Press(key="enter"),)


@pytest.mark.parametrize("data, expected", [
    ([], "must be an object keyed by task id"),
    ({"t": 5}, "entry 't': must be answers"),
    ({"t": [{"at_step": -1, "actions": [CLICK]}]}, "entry 't'[0].at_step: must be a whole number >= 0"),
    ({"t": [{"at_step": True, "actions": [CLICK]}]}, "[0].at_step"),
    ({"t": [{"at_step": 0, "actions": []}]}, "[0].actions: must be a non-empty list"),
    ({"t": [{"at_step": 0, "actions": [CLICK], "when": 1}]}, "[0]: unknown field 'when'"),
    ({"t": [{"at_step": 0, "actions": [CLICK, {"type": "clik"}]}]}, "[0].actions[1]: unknown action type 'clik'"),
    ({"t": [{"at_step": 0, "actions": [{"type": "click"}]}]}, "[0].actions[0]: action 'click' is missing"),
    ({"t": [{"at_step": 0, "actions": [{"type": "done"}]}]}, "[0].actions[0]: 'done' is the agent's to say"),
    ({"t": [{"at_step": 1, "actions": [CLICK]}, {"at_step": 1, "actions": [CLICK]}]}, "[1].at_step: step 1 has two"),
    ({"t": {"answers": {"q": 1}, "takeovers": []}}, "entry 't'.answers: answers must map questions"),
    ({"t": {"q": 1}}, "entry 't': answers must map"),
])
def test_errors_name_the_file_and_the_field(tmp_path: Path, data: Any, expected: str) -> None:
    path = write(tmp_path, data)
    with pytest.raises(HumanFileError) as info:
        ScriptedHuman.from_file(path)
    assert str(info.value).startswith(f"--cua-human {path}: ")
    assert expected in str(info.value)


def test_unreadable_and_malformed_files(tmp_path: Path) -> None:
    with pytest.raises(HumanFileError, match=r"--cua-human .*missing.json: cannot be read"):
        ScriptedHuman.from_file(tmp_path / "missing.json")
    with pytest.raises(HumanFileError, match=r"bad.json: not valid JSON: .* at line 1"):
        ScriptedHuman.from_file(write(tmp_path, "{oops", "bad.json"))
    with pytest.raises(HumanFileError, match=r"bad.yml: not valid YAML"):
        ScriptedHuman.from_file(write(tmp_path, "a: [b", "bad.yml"))
    with pytest.raises(argparse.ArgumentTypeError, match=r"bad.json: not valid JSON"):
        human_file_option(str(tmp_path / "bad.json"))
    assert parse_human_file({"x": {"q": "a"}}) == ({"x": {"q": "a"}}, {})


def test_a_malformed_file_is_a_usage_error_naming_it(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    bad = pytester.path / "takeover.json"
    bad.write_text(json.dumps({"calc-set-cell": [{"at_step": "first", "actions": [CLICK]}]}))
    result = pytester.runpytest_subprocess("--cua-human", str(bad), "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert f"--cua-human {bad}: entry 'calc-set-cell'[0].at_step: must be a whole number" in err, err


# --- the episode ----------------------------------------------------------------------------------------------

class Board(Environment):
    """Remembers the actions done to it; ``act`` of a click at x=999 fails."""

    name = "board"

    def __init__(self) -> None:
        self.done: list[str] = []

    def snapshot(self) -> Snapshot:
        return Snapshot("board", None)

    def restore(self, snapshot: Snapshot, scope: Any = None) -> None:
        self.done = []

    def residue(self, snapshot: Snapshot) -> list[str]:
        return []

    def observe(self, kinds: frozenset[str]) -> Observation:
        return Observation(title=f"{len(self.done)} done", screenshot=b"png")

    def act(self, action: Action) -> ActionResult:
        if isinstance(action, Click) and getattr(action.target, "x", 0) == 999:
            return ActionResult(action, ok=False, error="nothing there")
        self.done.append(action.describe())
        return ActionResult(action)

    def close(self) -> None:
        pass


class Typist(Agent):
    """Types its step number until its third step, then says done; keeps what it was told."""

    name = "typist"

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[Observation] = []

    def start(self, task: Task, context: AgentContext) -> None:
        pass

    def step(self, observation: Observation) -> Turn:
        self.seen.append(observation)
        if len(self.seen) >= 3:
            return Turn([Action.from_dict({"type": "done"})])
        return Turn([Type(text=f"agent {len(self.seen)}")])


def run_episode(tmp_path: Path, takeovers: Any) -> tuple[Episode, Board, Typist]:
    script = ScriptedHuman.from_file(write(tmp_path, {"t1": takeovers}))
    env, agent = Board(), Typist()
    episode = Episode(Task(id="t1", suite="s", instruction="i"), env, agent,
                      context=AgentContext(observation_kinds=frozenset({"screenshot"})), human=Human(None, script))
    episode.run()
    return episode, env, agent


def test_scripted_takeover_plays_human_steps_between_agent_steps(tmp_path: Path) -> None:
    episode, env, agent = run_episode(tmp_path, [
        {"at_step": 1, "actions": [{"type": "press", "key": "enter"}, {"type": "click", "target": [999, 1]},
                                   {"type": "type", "text": "human"}]},
        {"at_step": 7, "actions": [{"type": "press", "key": "f1"}]}])
    r = episode.result
    assert env.done == ["type(text='agent 1')", "press(key='enter')", "type(text='human')", "type(text='agent 2')"]
    assert (r.takeovers, r.human_steps, r.agent_steps, r.steps, r.end) == (1, 3, 3, 6, "done")
    assert r.failed_actions == 1
    assert r.help_notes == ["scripted takeover at_step 7 not played: the agent took 3 step(s)"]
    by = [s.extra.get("by") for s in episode.recorder.steps]
    assert by == ["agent", "human", "human", "human", "agent", "agent"]
    assert [s.index for s in episode.recorder.steps] == list(range(6))
    assert episode.recorder.steps[1].reasoning.startswith("by: human (takeover 1")
    told = agent.seen[1].human_reply or ""
    assert "did 3 action(s): press(key='enter'); click(target=(999, 1)) (failed: nothing there)" in told
    assert agent.seen[1].step == 4 and agent.seen[0].human_reply is None and agent.seen[2].human_reply is None
    assert r.to_dict()["takeovers"] == 1 and r.help_fields()["agent_steps"] == 3


def test_no_human_keeps_the_trajectory_as_it_was(tmp_path: Path) -> None:
    env, agent = Board(), Typist()
    episode = Episode(Task(id="t1", suite="s", instruction="i"), env, agent, context=AgentContext())
    r = episode.run()
    assert (r.takeovers, r.human_steps, r.agent_steps, r.steps) == (0, 0, 3, 3)
    assert all("by" not in s.extra for s in episode.recorder.steps)


# --- the recorder's translation -------------------------------------------------------------------------------

def key(name: str, down: bool = True, char: str | None = None, base: str | None = None) -> dict[str, Any]:
    return {"kind": "key", "down": down, "name": name, "char": char, "base": base or name}


def button(n: int, down: bool, x: int, y: int, time: int = 0) -> dict[str, Any]:
    return {"kind": "button", "down": down, "button": n, "x": x, "y": y, "time": time}


def test_recorded_events_become_typed_actions() -> None:
    events = [
        button(1, True, 10, 20, 0), button(1, False, 11, 21, 50),  # click
        *[key(c, d, c) for c in "ab" for d in (True, False)], key("Shift_L"), key("C", True, "C", "c"),
        key("Shift_L", False), key("Return", True, "\r"),  # type "abC", press enter
        key("Control_L"), key("s", True, "s"), key("s", False), key("Control_L", False),  # hotkey ctrl s
        key("Pause"),  # the hand key
        button(1, True, 100, 100, 1000), button(1, False, 100, 100, 1050),
        button(1, True, 101, 100, 1200), button(1, False, 101, 100, 1250),  # double click
        button(1, True, 5, 5, 3000), button(1, False, 300, 200, 3400),  # drag
        button(5, True, 50, 60), button(5, False, 50, 60), button(5, True, 50, 60),  # scroll 2 notches
        button(3, True, 7, 8), button(3, False, 7, 8),  # right click
        key("Shift_L"), key("Tab", True, None), key("Shift_L", False),  # shift+tab
    ]
    assert compile_events(events) == [
        {"type": "click", "target": {"x": 10, "y": 20}}, {"type": "type", "text": "abC"},
        {"type": "press", "key": "enter"}, {"type": "hotkey", "keys": ["ctrl", "s"]}, {"type": "toggle"},
        {"type": "double_click", "target": {"x": 100, "y": 100}},
        {"type": "drag", "source": {"x": 5, "y": 5}, "destination": {"x": 300, "y": 200}},
        {"type": "scroll", "dx": 0.0, "dy": 80.0, "target": {"x": 50, "y": 60}},
        {"type": "right_click", "target": {"x": 7, "y": 8}}, {"type": "hotkey", "keys": ["shift", "tab"]},
    ]
    for item in compile_events(events):  # every item but the toggle is a valid pytest-cua action
        if item["type"] != "toggle":
            Action.from_dict(item)


# --- the summary ----------------------------------------------------------------------------------------------

def record(task_id: str, outcome: str, takeovers: int = 0, human_steps: int = 0, agent_steps: int = 1) -> dict:
    return {"id": task_id, "suite": "prosoft", "nodeid": f"t::{task_id}", "outcome": outcome, "score":
            1.0 if outcome == "passed" else 0.0, "error_kind": None, "steps": agent_steps + human_steps,
            "times": {"wall_s": 1.0}, "cost_usd": 0.0, "tokens_in": 0, "tokens_out": 0, "takeovers": takeovers,
            "human_steps": human_steps, "agent_steps": agent_steps}


def test_summary_reports_success_with_and_without_help() -> None:
    records = [record("a", "passed", 1, 5), record("b", "passed"), record("c", "failed", 2, 3, 4),
               record("d", "failed"), record("e", "error")]
    summary = build_summary(records, {"trials": 1})
    totals = summary["totals"]
    assert (totals["takeovers"], totals["human_steps"], totals["agent_steps"], totals["helped"]) == (3, 8, 8, 2)
    assert (totals["passed_with_help"], totals["passed_without_help"]) == (1, 1)
    assert (totals["success_with_help"], totals["success_without_help"]) == (0.5, 0.25)
    assert totals["success_with_help"] == totals["success_rate"]
    lines = format_table(summary)
    assert ("human help: 3 takeover(s) in 2 scored episode(s), 8 human step(s), 8 agent step(s); success with help "
            "50.0% (2 passed), without help 25.0% (1 passed with no takeover)") in lines


def test_summary_without_takeovers_has_no_help_line() -> None:
    summary = build_summary([record("a", "passed"), {**record("b", "failed"), "takeovers": None}], {"trials": 1})
    assert summary["totals"]["success_without_help"] == summary["totals"]["success_rate"] == 0.5
    assert not [line for line in format_table(summary) if line.startswith("human help")]
