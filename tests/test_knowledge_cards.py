"""Knowledge cards (ProSoftArena's domain priors): a task's ``knowledge`` field is validated when the task file is
loaded, reaches a model agent's prompt under ``--demos`` only, and shows in the task's description and trajectory
fields. The prompt is checked where the model sees it: in the request a fake vendor server receives."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any, Iterator

import pytest
from PIL import Image

from pytest_cua.agents.base import AgentContext
from pytest_cua.agents.models.settings import ModelSettings
from pytest_cua.agents.registry import AgentRegistry
from pytest_cua.observations import Element, Observation
from pytest_cua.tasks.task import TaskFileError, load_task_file
from pytest_cua.testing.fake_models import FakeModelServer

KEY = "sk-test-knowledge-0123456789"
CARD = ["Ctrl+1 applies Heading 1", "A4 is 210 x 297 mm"]


def write_task(tmp_path: Path, **fields: Any) -> Path:
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps({"tasks": [{"id": "t1", "instruction": "make a letterhead", **fields}]}))
    return path


@pytest.mark.parametrize("raw, expected", [("Use Ctrl+1.", ("Use Ctrl+1.",)), (CARD, tuple(CARD)),
                                           (None, ())])
def test_card_loads_as_entries(tmp_path: Path, raw: Any, expected: tuple[str, ...]) -> None:
    fields = {} if raw is None else {"knowledge": raw}
    task = load_task_file(write_task(tmp_path, **fields), suite="s")[0]
    assert task.knowledge == expected
    assert "knowledge" not in task.extra


@pytest.mark.parametrize("raw, field", [(42, "knowledge"), ("  ", "knowledge"), ([], "knowledge"),
                                        (["ok", 3], "knowledge[1]"), (["ok", ""], "knowledge[1]"),
                                        ({"a": "b"}, "knowledge")])
def test_wrong_card_is_a_load_error_naming_file_and_field(tmp_path: Path, raw: Any, field: str) -> None:
    path = write_task(tmp_path, knowledge=raw)
    with pytest.raises(TaskFileError) as info:
        load_task_file(path, suite="s")
    assert info.value.field_name == field
    assert str(path) in str(info.value) and f"field {field!r}" in str(info.value) and "'t1'" in str(info.value)


def test_card_in_description_and_trajectory_fields(tmp_path: Path) -> None:
    task = load_task_file(write_task(tmp_path, knowledge=CARD), suite="s")[0]
    assert task.description() == "make a letterhead\n\nKnowledge card:\n- " + "\n- ".join(CARD)
    assert task.summary_fields()["knowledge"] == CARD
    bare = load_task_file(write_task(tmp_path), suite="s")[0]
    assert bare.description() == "make a letterhead" and "knowledge" not in bare.summary_fields()


# --- the prompt a model receives ---------------------------------------------------------------------------

@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeModelServer]:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_COMPATIBLE_API_KEY"):
        monkeypatch.setenv(name, KEY)
    with FakeModelServer(api_key=KEY) as srv:
        yield srv


def _screenshot() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (1280, 800), (240, 240, 240)).save(buf, format="PNG")
    return buf.getvalue()


def first_prompt(alias: str, server: FakeModelServer, tmp_path: Path, *, demos: bool) -> str:
    """The text of the first request the agent ``alias`` sends for a task that carries the card."""
    task = load_task_file(write_task(tmp_path, knowledge=CARD), suite="s")[0]
    url = server.anthropic_base_url if alias.startswith("claude") else server.openai_base_url
    registry = AgentRegistry()
    spec = registry.resolve(alias, {"model_settings": ModelSettings(base_url=url, options={
        "retries": "1", "format_retries": "0"})})
    agent = registry.create(spec)
    before = len(server.requests)
    try:
        agent.start(task, AgentContext(observation_kinds=agent.observation_kinds, demos=demos,
                                       options={"environment": "docker"}))
        shot = _screenshot()
        agent.step(Observation(step=0, screenshot=shot, som=shot, title="Writer",
                               elements={"e1": Element("e1", "button", "Save", bbox=(10, 10, 50, 20))}))
    finally:
        agent.close()
    assert len(server.requests) > before, "the agent sent no request"
    assert not server.violations, server.violations
    return server.requests[before].text


@pytest.mark.parametrize("alias", ["claude-sonnet-5", "gpt-5.5", "ui-tars-1.5-7b"])
def test_card_in_the_prompt_under_demos_only(alias: str, server: FakeModelServer, tmp_path: Path) -> None:
    with_demos = first_prompt(alias, server, tmp_path, demos=True)
    without = first_prompt(alias, server, tmp_path, demos=False)
    for entry in CARD:
        assert entry in with_demos, f"{alias}: card entry {entry!r} missing from the prompt under --demos"
        assert entry not in without, f"{alias}: card entry {entry!r} in the prompt without --demos"
    assert "make a letterhead" in with_demos and "make a letterhead" in without
