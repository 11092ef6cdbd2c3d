"""Model agents end to end: inner pytest runs of the real suites in real Chromium on the embedded org (and on
the docker desktop), with the model played by a fake vendor server that speaks the vendor's protocol
(``tests/models/fake_model_plugin.py``: it follows each task's demonstration, reading the element list or
finding the control in the screenshot's pixel space).

- ``--agent gpt-5.5`` (Responses, function calls by element id) passes tasks of 5 templates and a question;
- ``--agent computer-use-preview`` and ``--agent claude-sonnet-5`` (pixel coordinates; Claude through its
  computer toolset) pass 5 tasks each, one through Lightning comboboxes and a scroll;
- ``--agent ui-tars-1.5-7b`` (text grammar, smart_resize coordinates) passes 2 ProSoft tasks on the desktop;
- record once, replay with no model server: the same verdicts; a request with no recording is an agent error
  naming the task and step, never a live call;
- ``--cua-max-cost-task`` ends an episode with end state budget; ``--cua-max-cost`` across two xdist workers
  skips the tasks not started;
- the API key is in no file the runs produce; trajectories and Allure show what the model was sent.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Mapping

import pytest

from tests.models.fake_model_plugin import API_KEY
from tests.tiers import full

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
TIME_LIMIT = "180"  # per task: a hang is a time_limit failure of that task, not a stuck CI
BROWSER_TASKS = ["create_lead_1", "convert_lead_1", "freeze_user_1", "create_owd_settings_1",
                 "create_account_and_contact_1", "qa_sales_lookup_1"]
# tasks for the pixel styles: clicks and typing, and a case edited through Lightning comboboxes (Status) with a
# Save below the fold (the fake computer policy opens the combobox, clicks the option on the next screenshot,
# and scrolls to controls outside the screenshot)
COMPUTER_TASKS = ["freeze_user_1", "escalate_case_change_owner_1",
                  *(["create_validation_rule_1", "deactivate_user_1", "assign_permission_set_to_user_1"] if full()
                    else [])]  # tests/tiers.py
PROSOFT_TASKS = ["calc-set-cell", *(["calc-sum-q1"] if full() else [])]


class Run:
    """One inner pytest run: exit code, output and summary.json records by task id."""

    def __init__(self, reports: Path, *args: str, fake: str | None = None, env: Mapping[str, str] | None = None):
        cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--cua-reports", str(reports),
               "--cua-time-limit", TIME_LIMIT, "-o", "faulthandler_timeout=400", *args]  # a hang shows its stacks
        if fake:
            cmd += ["-p", "tests.models.fake_model_plugin", "--fake-model", fake]
        clean = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        self.proc = subprocess.run(cmd, cwd=REPO, text=True, capture_output=True, timeout=1800,
                                   env={**clean, **(env or {})})
        self.output = self.proc.stdout + self.proc.stderr
        path = reports / "summary.json"
        assert path.exists(), f"no summary.json:\n{self.output[-5000:]}"
        self.summary = json.loads(path.read_text())
        self.tasks: dict[str, dict[str, Any]] = {t["id"]: t for t in self.summary["tasks"]}
        assert "protocol violations" not in self.output, self.output[-5000:]

    def passed(self) -> list[str]:
        return sorted(i for i, t in self.tasks.items() if t["outcome"] == "passed")

    def explain(self) -> str:
        return "\n".join(f"{i}: {t['outcome']} {t.get('error_kind') or ''} {t['score']} {str(t.get('error'))[:300]}"
                         for i, t in sorted(self.tasks.items())) + "\n" + self.output[-3000:]


def select(ids: list[str]) -> list[str]:
    return ["-k", " or ".join(ids)]


def scuba(*args: str) -> list[str]:
    return ["suites/scuba", *args]


@pytest.fixture(scope="module")
def browser_recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Run, Path, Path]:
    base = tmp_path_factory.mktemp("gpt55")
    recordings = base / "recordings"
    allure = base / "allure"
    run = Run(base / "reports", *scuba(*select(BROWSER_TASKS), "--agent", "gpt-5.5", "--cua-model-record",
                                       str(recordings), "--alluredir", str(allure), "--junitxml",
                                       str(base / "junit.xml")), fake="browser")
    return run, recordings, base


@pytest.mark.slow
def test_gpt55_passes_tasks_of_five_templates_through_function_calls(browser_recorded: tuple[Run, Path, Path]) -> None:
    run, _, _ = browser_recorded
    assert run.passed() == sorted(BROWSER_TASKS), run.explain()
    assert len({run.tasks[i]["template"] for i in BROWSER_TASKS}) >= 5
    record = run.tasks["create_lead_1"]
    assert record["agent"]["name"] == "openai" and record["agent"]["model"] == "gpt-5.5"
    assert record["agent"]["style"] == "browser" and len(record["agent"]["prompt"]["sha256"]) == 64
    assert record["tokens_in"] > 0 and record["cost_usd"] > 0 and record["usage"]["requests"] >= record["steps"]
    assert run.summary["totals"]["cost_usd"] == pytest.approx(sum(t["cost_usd"] for t in run.tasks.values()), abs=1e-5)


def test_trajectory_and_allure_show_what_the_model_was_sent(browser_recorded: tuple[Run, Path, Path]) -> None:
    run, _, base = browser_recorded
    folder = Path(run.tasks["create_lead_1"]["trajectory"]).parent
    steps = json.loads((folder / "trajectory.json").read_text())["steps"]
    first = steps[0]
    model = first["extra"]["model"]
    assert model["latency_s"] >= 0 and model["usage"]["tokens_in"] > 0 and model["image"]["width"] == 1280
    assert (folder / first["images"]["model"]).stat().st_size > 1000  # the scaled image the model saw
    assert first["reasoning"] and "function_call" in first["raw"] and first["actions"][0]["type"] == "goto"
    attachments = "".join(p.read_text() for p in (base / "allure").glob("*-result.json"))
    assert "image sent to the model" in attachments and "model output" in attachments
    junit = (base / "junit.xml").read_text()
    assert 'name="cua_cost_usd"' in junit


def test_the_api_key_is_in_no_file_produced(browser_recorded: tuple[Run, Path, Path]) -> None:
    _, _, base = browser_recorded
    files = [p for p in base.rglob("*") if p.is_file()]
    assert len(files) > 20
    leaked = [str(p) for p in files if API_KEY.encode() in p.read_bytes()]
    assert not leaked


#: a task the recorded run did not run: the replay run meets a request with no recording
UNRECORDED = "deactivate_user_1"
#: the recorded tasks the replay run plays again: two in CI (a create through a form, a lead conversion), every one
#: in a full run (tests/tiers.py)
REPLAYED = BROWSER_TASKS if full() else ["create_lead_1", "convert_lead_1"]


@pytest.fixture(scope="module")
def replayed(browser_recorded: tuple[Run, Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Run:
    """One replay run of the recorded tasks and of UNRECORDED, with no fake and no key: nothing to call."""
    _, recordings, _ = browser_recorded
    return Run(tmp_path_factory.mktemp("replay"), *scuba(*select([*REPLAYED, UNRECORDED]), "--agent", "gpt-5.5",
                                                         "--cua-model-replay", str(recordings)))


def test_replay_gives_the_recorded_verdicts_with_no_model_server(browser_recorded: tuple[Run, Path, Path],
                                                                 replayed: Run) -> None:
    recorded, recordings, _ = browser_recorded
    assert len(list(recordings.glob("*.json"))) >= sum(t["steps"] for t in recorded.tasks.values())
    replay = {i: t for i, t in replayed.tasks.items() if i != UNRECORDED}
    assert sorted(replay) == sorted(REPLAYED), replayed.explain()
    assert {i: t["outcome"] for i, t in replay.items()} == {i: recorded.tasks[i]["outcome"] for i in REPLAYED}
    assert {i: t["score"] for i, t in replay.items()} == {i: recorded.tasks[i]["score"] for i in REPLAYED}
    assert replay["create_lead_1"]["agent"]["traffic"] == "replay"


def test_replay_without_a_recording_is_an_agent_error_naming_task_and_step(replayed: Run) -> None:
    assert UNRECORDED not in BROWSER_TASKS
    task = replayed.tasks[UNRECORDED]
    assert task["outcome"] == "error" and task["error_kind"] == "agent", replayed.explain()
    assert f"no recording for task {UNRECORDED} step 1" in task["error"]


#: tasks the computer-use-preview run adds to COMPUTER_TASKS: the fake model refuses the first, and a vendor
#: safety check stops the second at its first computer call (--cua-safety-checks stop, the default)
REFUSED, STOPPED = "qa_sales_lookup_1", "create_lead_1"


def _computer_run(reports: Path, agent: str, fake: str, more_tasks: tuple[str, ...] = (), *options: str) -> Run:
    # a short window: forms run below the fold
    # one process: a second worker's org, browser and login cost more than the tasks it would take
    return Run(reports, *scuba(*select([*COMPUTER_TASKS, *more_tasks]), "--agent", agent,
                               "--cua-viewport", "1280x600", *options), fake=fake)


@pytest.fixture(scope="module")
def computer_preview(tmp_path_factory: pytest.TempPathFactory) -> tuple[Run, Path]:
    """The computer-use-preview run: COMPUTER_TASKS, and REFUSED and STOPPED with their twists, into Allure."""
    base = tmp_path_factory.mktemp("computer-preview")
    run = _computer_run(base / "reports", "computer-use-preview", "openai-computer", (REFUSED, STOPPED),
                        "--fake-model-twist", f"{REFUSED}=refusal", "--fake-model-twist", f"{STOPPED}=safety_check",
                        "--alluredir", str(base / "allure"))
    return run, base / "allure"


@pytest.mark.parametrize("agent,fake", [("computer-use-preview", "openai-computer"),
                                        ("claude-sonnet-5", "anthropic-computer")])
def test_computer_use_passes_tasks_through_pixel_coordinates(agent: str, fake: str, tmp_path: Path,
                                                             request: pytest.FixtureRequest) -> None:
    if agent == "computer-use-preview":
        run = request.getfixturevalue("computer_preview")[0]
        assert {REFUSED, STOPPED}.isdisjoint(COMPUTER_TASKS)
        assert set(run.tasks) == {*COMPUTER_TASKS, REFUSED, STOPPED}, run.explain()
        assert [i for i in run.passed() if i not in (REFUSED, STOPPED)] == sorted(COMPUTER_TASKS), run.explain()
    else:
        run = _computer_run(tmp_path, agent, fake)
        assert run.passed() == sorted(COMPUTER_TASKS), run.explain()
    assert run.tasks["freeze_user_1"]["agent"]["style"] == "computer"
    folder = Path(run.tasks["freeze_user_1"]["trajectory"]).parent
    steps = [json.loads(line) for line in (folder / "steps.jsonl").read_text().splitlines()]
    clicks = [a for s in steps for a in s["actions"] if a["type"] == "click"]
    assert clicks and all(isinstance(a["target"], dict) for a in clicks)  # points, not element ids
    assert steps[0]["extra"]["model"]["coords"]["kind"] == "pixels"
    # the case's Status is a Lightning combobox (opened, then its option clicked) and Save lies below the fold
    folder = Path(run.tasks["escalate_case_change_owner_1"]["trajectory"]).parent
    kinds = [a["type"] for line in (folder / "steps.jsonl").read_text().splitlines()
             for a in json.loads(line)["actions"]]
    assert "scroll" in kinds and "select_option" not in kinds, kinds


def test_a_refusal_and_a_safety_check_end_their_episodes_as_agent_failures(
        computer_preview: tuple[Run, Path]) -> None:
    """The model refuses one task and a vendor safety check stops the other (--cua-safety-checks stop, the
    default): each is failed (not passed, not an error), with its end state and reason in the record and the
    terminal's line under the table."""
    run, allure_dir = computer_preview
    refused, stopped = run.tasks[REFUSED], run.tasks[STOPPED]
    assert refused["outcome"] == "failed" and refused["end"] == "refused", run.explain()
    assert "can't help" in refused["end_reason"] and refused.get("answer") in (None, "")
    assert stopped["outcome"] == "failed" and stopped["end"] == "safety_check", run.explain()
    assert "malicious_instructions" in stopped["end_reason"]
    assert [c["code"] for c in stopped["safety_checks"]] == ["malicious_instructions"]
    assert stopped["safety_checks"][0]["decision"] == "stopped"
    assert "model refusals: 1 episode(s) ended refused; safety checks: 1 raised, 1 episode(s) stopped" in run.output
    attached = [json.loads((allure_dir / a["source"]).read_text())
                for result in allure_dir.glob("*-result.json") for step in _steps(json.loads(result.read_text()))
                for a in step.get("attachments", []) if a["name"] == "vendor safety checks"]
    assert attached and attached[0][0]["code"] == "malicious_instructions", "no safety check attached in Allure"


def test_cost_cap_per_task_ends_the_episode_with_budget(tmp_path: Path) -> None:
    run = Run(tmp_path, *scuba("-k", "create_account_and_contact_1", "--agent", "gpt-5.5", "--cua-max-cost-task",
                               "0.02"), fake="browser")
    task = run.tasks["create_account_and_contact_1"]
    assert task["end"] == "budget" and task["outcome"] == "failed", run.explain()
    assert 0.02 <= task["cost_usd"] < 0.2


def test_cost_cap_of_the_run_holds_across_workers(tmp_path: Path) -> None:
    tasks = ["freeze_user_1", "deactivate_user_1", "create_public_group_1", "create_lead_1", "convert_lead_1",
             "create_owd_settings_1"]
    run = Run(tmp_path, *scuba(*select(tasks), "--agent", "gpt-5.5", "--cua-max-cost", "0.15", "-n", "2"),
              fake="browser")
    skipped = [t for t in run.tasks.values() if t["outcome"] == "skipped"]
    assert skipped, run.explain()
    assert all("cost cap" in (t["error"] or "") for t in skipped)
    ran = [t for t in run.tasks.values() if t["outcome"] != "skipped"]
    spent = sum(t["cost_usd"] for t in ran)
    steps = [json.loads(line) for t in ran
             for line in (Path(t["trajectory"]).parent / "steps.jsonl").read_text().splitlines()]
    dearest = max(s["cost_usd"] for s in steps)
    assert spent <= 0.15 + 2 * dearest  # each of the 2 workers may finish the step that crossed the cap


@pytest.mark.usefixtures("docker_client")  # skipped without a dockerd, a failure under CI (tests/conftest.py)
@pytest.mark.docker
def test_ui_tars_passes_prosoft_tasks_on_the_desktop(tmp_path: Path) -> None:
    run = Run(tmp_path, "suites/prosoft", *select(PROSOFT_TASKS), "--agent", "ui-tars-1.5-7b",
              "--cua-docker-image", "cua-desktop-office", fake="uitars")  # Calc tasks: the office image has Calc
    assert run.passed() == sorted(PROSOFT_TASKS), run.explain()
    first = json.loads((Path(run.tasks["calc-set-cell"]["trajectory"]).parent / "steps.jsonl").read_text()
                       .splitlines()[0])
    assert first["extra"]["model"]["coords"]["kind"] == "smart_resize"
    assert first["actions"][0]["type"] == "click"


def _steps(node: dict[str, Any]) -> list[dict[str, Any]]:
    """Every step of an Allure result, nested ones included."""
    return [s for step in node.get("steps", []) for s in (step, *_steps(step))]
