"""ProSoftArena's observation settings on the desktop, and the vision marks for windows without a tree.

- The detector (``pytest_cua.envs.docker.vision_marks``) on a real Tk window (Tk exports no accessibility tree)
  drawn under Xvfb on the host: every button and the entry are found within a few pixels, text without an
  outline is a text box, the same screenshot gives the same marks, the count is bounded, nothing meets a tree
  mark.
- In a container: ``vision`` adds the marks after the tree's ids, drawn on the set-of-marks image, and an
  action on a detected id clicks the centre of its box (the Tk button's command runs).
- One episode per setting with a scripted fake model (the vendor's wire format, on loopback) on a small task
  in the same window, "press Apply": pixels for the screenshot settings, element ids for the marks. Tk has no
  tree, so the tree-only mark settings give the model nothing to press (it gives up), and ``som+vision``
  gives it the button: the ablation the settings are for.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from typing import Any, Iterator

import pytest

from .desktop_helpers import FILES, make_env, wait_for
from pytest_cua.actions import Click
from pytest_cua.envs.base import roll_back
from pytest_cua.envs.docker.vision_marks import MAX_MARKS, Mark, detect
from pytest_cua.tasks.task import Task

pytest.importorskip("cv2")
docker = pytest.mark.docker
TOLERANCE = 4  # pixels, each edge
BUTTONS = ("Open", "Save", "Run", "Apply")


def boxed(widget: list[int], mark: Mark) -> bool:
    return all(abs(a - b) <= TOLERANCE for a, b in zip(widget, mark.box))


def matching(widget: list[int], marks: list[Mark], kind: str = "widget") -> Mark | None:
    found = [m for m in marks if m.kind == kind and boxed(widget, m)]
    return found[0] if len(found) == 1 else None


# --- the detector on a Tk window under Xvfb on the host ----------------------------------------------------

@pytest.fixture(scope="module")
def tk_screen(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[bytes, dict[str, list[int]]]]:
    """A screenshot of the Tk window on a private Xvfb display, and the widgets' boxes as Tk reports them."""
    if not shutil.which("Xvfb"):
        pytest.skip("Xvfb is not installed (apt-get install xvfb)")
    pytest.importorskip("tkinter")
    from PIL import ImageGrab

    out = tmp_path_factory.mktemp("vision")
    read, write = os.pipe()
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1024x700x24", "-nolisten", "tcp"],
                            pass_fds=(write,), stderr=subprocess.DEVNULL)
    os.close(write)
    window = None
    try:
        with os.fdopen(read) as ready:  # Xvfb writes its display number once it accepts clients
            display = ":" + ready.readline().strip()
        window = subprocess.Popen([sys.executable, str(FILES / "vision_buttons.py")],
                                  env={**os.environ, "DISPLAY": display, "CUA_VISION_DIR": str(out)})
        widgets = out / "widgets.json"
        wait_for(widgets.exists, timeout=60, what="the Tk window's widgets.json")
        boxes = json.loads(widgets.read_text())

        def settled() -> bytes | None:  # two equal screenshots in a row: the window is painted
            first, second = (_png(ImageGrab.grab(xdisplay=display)) for _ in range(2))
            return second if first == second and b"" != first else None

        yield wait_for(settled, timeout=30, what="a settled screen"), boxes
    finally:
        if window is not None:
            window.kill()
            window.wait(10)
        xvfb.kill()
        xvfb.wait(10)


def _png(image: Any) -> bytes:
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


def test_the_detector_finds_the_buttons_and_the_entry(tk_screen: tuple[bytes, dict[str, list[int]]]) -> None:
    png, boxes = tk_screen
    marks = detect(png)
    for name in (*BUTTONS, "entry"):
        assert matching(boxes[name], marks) is not None, (name, boxes[name], marks)
    # the check button has no outline: its label is a text box inside the widget's box
    x, y, w, h = boxes["check"]
    assert any(m.kind == "text" and x <= m.box[0] and m.box[0] + m.box[2] <= x + w + 1 for m in marks), marks
    assert len(marks) <= 10  # the buttons' labels are no marks of their own: the button is what is clicked


def test_the_detector_is_deterministic_bounded_and_in_reading_order(
        tk_screen: tuple[bytes, dict[str, list[int]]]) -> None:
    png, boxes = tk_screen
    marks = detect(png)
    assert detect(png) == marks
    top_row = [matching(boxes[name], marks) for name in ("Open", "Save", "Run")]
    assert marks[:3] == top_row  # the first row, left to right
    assert detect(png, max_marks=2) == marks[:2]
    assert len(detect(png)) <= MAX_MARKS


def test_more_marks_than_the_bound_keep_the_widgets(tk_screen: tuple[bytes, dict[str, list[int]]]) -> None:
    png, boxes = tk_screen
    five = detect(png, max_marks=5)
    assert [m.kind for m in five] == ["widget"] * 5
    assert all(matching(boxes[name], five) is not None for name in (*BUTTONS, "entry"))


def test_no_vision_mark_meets_a_tree_mark_and_regions_bound_the_search(
        tk_screen: tuple[bytes, dict[str, list[int]]]) -> None:
    png, boxes = tk_screen
    save = boxes["Save"]
    marks = detect(png, avoid=[tuple(float(v) for v in save)])  # type: ignore[list-item]
    assert matching(save, marks) is None and matching(boxes["Open"], marks) is not None
    x, y, w, h = boxes["Apply"]
    region = (x - 40, y - 20, w + 80, h + 40)
    only = detect(png, regions=[region])
    assert matching(boxes["Apply"], only) is not None and matching(boxes["Open"], only) is None
    assert all(region[0] <= m.box[0] and m.box[0] + m.box[2] <= region[0] + region[2] for m in only)


# --- in a container: marks after the tree's, and an action on a detected id -------------------------------

def tk_task(task_id: str = "vision") -> Task:
    return Task(id=task_id, suite="desktop-tests", instruction="Press the Apply button of the cua-vision window.",
                extra={"start_files": [{"src": "vision_buttons.py", "dest": "/root/vision_buttons.py"}],
                       "start_command": ["python3", "/root/vision_buttons.py"], "window": "^cua-vision$",
                       "window_timeout_s": 60})


def start_tk(env: Any, task: Task) -> dict[str, list[int]]:
    roll_back(env, env.test_snapshot)
    env.begin_task(task)
    text = wait_for(lambda: env.run(["cat", "/root/widgets.json"])["stdout"].strip(), timeout=60,
                    what="the Tk window's widgets.json")
    return json.loads(text)


def clicked(env: Any) -> list[str]:
    return env.run(["sh", "-c", "cat /root/clicked.txt 2>/dev/null || true"])["stdout"].split()


@docker
def test_vision_marks_in_a_container_and_an_action_on_one(desktop: Any) -> None:
    boxes = start_tk(desktop, tk_task())
    tree_only = desktop.observe(frozenset({"som"}))
    assert tree_only.elements == {} and "cua-vision" in tree_only.extra["axtree"]["windows_without_tree"]
    obs = desktop.observe(frozenset({"som", "vision"}))
    assert obs.extra["vision"]["windows"] == ["cua-vision"] and obs.extra["vision"]["marks"] == len(obs.elements)
    assert obs.som is not None and obs.som != tree_only.som  # the marks are drawn
    apply = [e for e in obs.elements.values()
             if all(abs(a - b) <= TOLERANCE for a, b in zip(boxes["Apply"], e.bbox or ()))]
    assert len(apply) == 1 and apply[0].role == "detected_widget" and apply[0].attributes["source"] == "vision"
    result = desktop.act(Click(apply[0].id))
    assert result.ok, result.error
    x, y, w, h = boxes["Apply"]
    resolved = result.detail["resolved"]["target"]  # the centre of the detected box
    assert (resolved["id"], resolved["role"]) == (apply[0].id, "detected_widget")
    assert abs(resolved["x"] - (x + w / 2)) <= 2 and abs(resolved["y"] - (y + h / 2)) <= 2
    assert wait_for(lambda: clicked(desktop) == ["Apply"], timeout=10, what="the Apply button's command")


# --- ImageJ (Java AWT: no tree) in the pro image ----------------------------------------------------------

@pytest.fixture(scope="module")
def imagej(docker_client: Any) -> Iterator[Any]:
    """A pro container with ImageJ's main window (its menus and tool bar; AWT exports no accessibility tree)."""
    from pytest_cua.envs.docker.images import build_image
    from pytest_cua.envs.docker.recipes import load_recipe

    build_image(load_recipe("cua-desktop-pro"), client=docker_client, progress=lambda line: None)  # cached by hash
    env = make_env("cua-desktop-pro")
    try:
        env.begin_task(Task(id="imagej", suite="desktop-tests", instruction="-",
                            extra={"start_command": ["imagej"], "window": "^ImageJ$", "window_timeout_s": 180}))
        yield env
    finally:
        env.close()


def screen_crop(env: Any, box: tuple[float, float, float, float], png: bytes | None = None) -> bytes:
    """The pixels of ``box`` in ``png``, else in a new screenshot (an observation that leaves no ids)."""
    from PIL import Image

    shot = Image.open(io.BytesIO(png or env.observe(frozenset({"screenshot"})).screenshot))
    x, y, w, h = box
    return shot.crop((int(x), int(y), int(x + w), int(y + h))).tobytes()


@docker
def test_imagej_tool_bar_is_marked_and_a_detected_tool_is_clicked(imagej: Any) -> None:
    obs = imagej.observe(frozenset({"som", "vision"}))
    assert obs.extra["axtree"]["windows_without_tree"] == ["ImageJ"] and obs.extra["vision"]["windows"] == ["ImageJ"]
    widgets = [e for e in obs.elements.values() if e.role == "detected_widget"]
    rows: dict[int, list[Any]] = {}
    for element in widgets:  # the tool bar: the row with the most widgets of one height
        rows.setdefault(round((element.bbox[1] + element.bbox[3] / 2) / 8), []).append(element)
    tools = sorted(max(rows.values(), key=len), key=lambda e: e.bbox[0])
    assert len(tools) >= 15, [e.bbox for e in widgets]  # ImageJ 1.53's tool bar has 19 buttons and more
    # an unchanged screen: the same ids on the same boxes (and the plain screenshot beside them)
    again = imagej.observe(frozenset({"som", "vision", "screenshot"}))
    assert {k: v.bbox for k, v in again.elements.items()} == {k: v.bbox for k, v in obs.elements.items()}
    oval = tools[1]  # the second tool (the first, the rectangle, is selected at the start)
    before = screen_crop(imagej, oval.bbox, again.screenshot)
    result = imagej.act(Click(oval.id))
    assert result.ok, result.error
    assert wait_for(lambda: screen_crop(imagej, oval.bbox) != before, timeout=15,
                    what="the clicked tool button drawn pressed")


# --- one episode per setting with a scripted fake model ----------------------------------------------------

SCREEN = (1280, 800)
#: setting -> the model (its style) and whether pressing Apply is possible under it
RUNS = {
    "screenshot": ("computer-use-preview", True),
    "screenshot+axtree": ("anthropic:claude-sonnet-4-20250514", True),
    "som": ("gpt-5.5", False),  # Tk exports no tree: no mark, no id to press
    "som+vision": ("gpt-5.5", True),
    "som+screenshot": ("claude-sonnet-5", False),
    "som+screenshot+axtree": ("openai-compatible:my-vlm", False),
}


@pytest.fixture
def fake_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    from pytest_cua.testing.fake_models import FakeModelServer

    key = "sk-test-observation-settings-0123456789"
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_COMPATIBLE_API_KEY"):
        monkeypatch.setenv(name, key)
    with FakeModelServer(api_key=key) as server:
        yield server


class PressApply:
    """A scripted model that presses Apply as the setting lets it: at the button's pixels in the screenshot it
    was sent (computer styles), or by the id of the listed element whose box holds the button's centre
    (element lists of the browser style; a detected element's line gives its box), else it gives up."""

    def __init__(self, apply: list[int], pixels: str | None) -> None:
        x, y, w, h = apply
        self.centre = (x + w / 2, y + h / 2)
        self.pixels = pixels  # openai or anthropic: the computer tool's dialect
        self.pressed = False

    def __call__(self, request: Any) -> Any:
        from pytest_cua.testing.fake_models import FakeCall, FakeReply

        if self.pressed:
            return FakeReply(text="Done.") if self.pixels else FakeReply(calls=[FakeCall("done", {})])
        self.pressed = True
        if self.pixels:
            width, height = request.image_size()
            x, y = round(self.centre[0] * width / SCREEN[0]), round(self.centre[1] * height / SCREEN[1])
            native = ({"type": "click", "button": "left", "x": x, "y": y} if self.pixels == "openai"
                      else {"action": "left_click", "coordinate": [x, y]})
            return FakeReply(calls=[FakeCall("computer", native)])
        for element in request.elements().values():
            box = json.loads(element.attributes.get("box", "null") or "null")
            if box and box[0] <= self.centre[0] <= box[0] + box[2] and box[1] <= self.centre[1] <= box[1] + box[3]:
                return FakeReply(calls=[FakeCall("click", {"element_id": element.id})])
        return FakeReply(calls=[FakeCall("fail", {"reason": "no element of the list is the Apply button"})])


def model_agent(alias: str, server: Any, kinds: frozenset[str]) -> Any:
    from pytest_cua.agents.models.settings import ModelSettings
    from pytest_cua.agents.registry import AgentRegistry

    url = server.anthropic_base_url if alias.startswith(("claude", "anthropic")) else server.openai_base_url
    settings = ModelSettings(base_url=url, observe=kinds, history=1,
                             style="browser" if alias == "claude-sonnet-5" else None,
                             options={"retries": "2", "retry_base_s": "0.01"})
    registry = AgentRegistry()
    spec = registry.resolve(alias, {"model_settings": settings})
    registry.validate(spec)
    return registry.create(spec)


@docker
@pytest.mark.parametrize("name", list(RUNS))
def test_an_episode_under_each_setting(name: str, desktop: Any, fake_server: Any) -> None:
    from pytest_cua.agents.base import AgentContext
    from pytest_cua.agents.models.observation_settings import SETTINGS
    from pytest_cua.episode.loop import Episode
    from pytest_cua.testing.fake_models import ScriptedPolicy

    alias, possible = RUNS[name]
    kinds = SETTINGS[name]
    boxes = start_tk(desktop, tk_task(f"vision-{name}"))
    agent = model_agent(alias, fake_server, kinds)
    pixels = {"computer": "openai" if alias.startswith("computer") else "anthropic"}.get(agent.style.name)
    model = PressApply(boxes["Apply"], pixels)
    fake_server.policy = ScriptedPolicy([model, model])
    episode = Episode(tk_task(f"vision-{name}"), desktop, agent, max_steps=4, time_limit_s=120,
                      context=AgentContext(observation_kinds=kinds, options={"environment": "docker"}))
    result = episode.run()
    assert not fake_server.violations
    first = fake_server.requests[0]
    images = len(first.images)
    assert images == (2 if {"som", "screenshot"} <= kinds else 1)
    assert ("Accessibility tree" in first.text) == ("axtree" in kinds)
    if "axtree" in kinds:  # the tree's text says which window has none
        assert 'windows without an accessibility tree, see the screenshot: "cua-vision"' in first.text
    assert ("detected_widget" in first.text) == (name == "som+vision")
    assert agent.describe()["observation"]["setting"] == name
    if possible:
        assert result.end == "done", result
        assert wait_for(lambda: clicked(desktop) == ["Apply"], timeout=10, what="the Apply button's command")
    else:
        assert result.end == "fail" and "no element" in (result.fail_reason or ""), result
        assert clicked(desktop) == []
