"""ProSoftArena's observation settings (``--cua-observe`` screenshot, screenshot+axtree, som, som+vision,
som+screenshot, som+screenshot+axtree): what the model is sent under each, checked in the requests the fake
vendor servers receive; the agent's description (the task record's ``agent.observation``) names the setting;
a setting the style cannot act in, a bad kind and a bad ``--cua-history`` are usage errors naming the option
and the value."""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import Image, ImageDraw

from pytest_cua.agents.models.observation_settings import SETTINGS, check_style, setting_name
from pytest_cua.agents.models.settings import DEFAULT_HISTORY, ModelSettings, resolve_model_settings
from pytest_cua.agents.registry import AgentRegistry
from pytest_cua.observations import Element, Observation, parse_kinds
from pytest_cua.testing.fake_models import FakeCall, FakeModelServer, FakeReply, FakeRequest, ScriptedPolicy
from tests.models.test_model_agents import SAVE_BOX, SHOT, agent, start

pytestmark = pytest.mark.usefixtures("keys")
TREE = 'application "tk"\n  [e1] text "Last Name"\n  [e2] push button "Save"'
VISION = Element("e3", "detected_widget", "", bbox=(40.0, 60.0, 120.0, 30.0), attributes={"source": "vision"})


def marked() -> bytes:
    """The set-of-marks image: the screenshot with a red box (the marks)."""
    image = Image.open(io.BytesIO(SHOT)).convert("RGB")
    x, y, w, h = SAVE_BOX
    ImageDraw.Draw(image).rectangle([x - 6, y - 6, x + w + 6, y + h + 6], outline=(230, 25, 75), width=6)
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


SOM = marked()


def env_observation(kinds: frozenset[str], step: int = 0) -> Observation:
    """What the desktop gives for ``kinds``: the screenshot, the marks, the tree's text, the elements."""
    elements = {"e1": Element("e1", "text", "Last Name", bbox=(100, 100, 300, 30)),
                "e2": Element("e2", "push button", "Save", bbox=SAVE_BOX)}
    if "vision" in kinds:
        elements["e3"] = VISION
    tree = kinds & {"axtree", "som", "vision"}
    return Observation(step=step, screenshot=SHOT if "screenshot" in kinds else None,
                       som=SOM if "som" in kinds else None, axtree=TREE if "axtree" in kinds else None,
                       elements=elements if tree else {}, title="cua-vision")


def has_marks(png: bytes) -> bool:
    import numpy

    rgb = numpy.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    return bool(((rgb[..., 0] > 200) & (rgb[..., 1] < 60) & (rgb[..., 2] < 110)).any())


def one_step(alias: str, server: FakeModelServer, kinds: frozenset[str] | None, **settings: Any) -> FakeRequest:
    done = FakeReply(text="Thought: done.\nAction: finished(content='ok')") if alias.startswith("ui-tars") \
        else FakeReply(calls=[FakeCall("done", {})])
    server.policy = ScriptedPolicy([done, FakeReply(text="Done.")])
    a = agent(alias, server, observe=kinds, **settings)
    start(a)
    a.step(env_observation(kinds or a.observation_kinds))
    assert not server.violations
    return server.requests[-1]


# (setting, alias, style settings) -> images sent (marked?), text the model gets
@pytest.mark.parametrize("name,alias,extra,images,tree,elements", [
    ("screenshot", "computer-use-preview", {}, [False], False, False),
    ("screenshot+axtree", "gpt-5.5", {}, [False], True, False),
    ("screenshot+axtree", "anthropic:claude-sonnet-4-20250514", {}, [False], True, False),
    ("screenshot+axtree", "ui-tars-1.5-7b", {}, [False], True, False),
    ("som", "gpt-5.5", {}, [True], False, True),
    ("som+vision", "claude-sonnet-5", {"style": "browser"}, [True], False, True),
    ("som+screenshot", "openai-compatible:my-vlm", {}, [True, False], False, True),
    ("som+screenshot+axtree", "gpt-5.5", {}, [True, False], True, False),
])
def test_what_the_model_sees_under_each_setting(name: str, alias: str, extra: dict[str, Any], images: list[bool],
                                                tree: bool, elements: bool, server: FakeModelServer) -> None:
    kinds = SETTINGS[name]
    request = one_step(alias, server, kinds, **extra)
    assert [has_marks(png) for png in request.images] == images
    assert ("Accessibility tree" in request.text and 'push button "Save"' in request.text) == tree
    assert ("Interactive elements:" in request.text) == elements
    if elements:
        assert '[e2] push button "Save"' in request.text
    assert ('[e3] detected_widget "" box=[40, 60, 120, 30]' in request.text) == (name == "som+vision")


def test_without_a_setting_the_browser_style_shows_marks_and_the_element_list(server: FakeModelServer) -> None:
    request = one_step("gpt-5.5", server, None)  # its own kinds: som and axtree
    assert [has_marks(png) for png in request.images] == [True]
    assert "Interactive elements:" in request.text and "Accessibility tree" not in request.text


def test_the_record_names_the_setting_and_the_history(server: FakeModelServer) -> None:
    a = agent("gpt-5.5", server, observe=parse_kinds("screenshot,som"), history=0)
    assert a.describe()["observation"] == {"setting": "som+screenshot", "kinds": ["som", "screenshot"],
                                           "named": True, "explicit": True}
    assert a.describe()["history"] == 0
    default = agent("gpt-5.5", server).describe()
    assert default["observation"]["setting"] == "som+axtree" and default["observation"]["explicit"] is False
    assert default["history"] == DEFAULT_HISTORY


def test_setting_names() -> None:
    for name, kinds in SETTINGS.items():
        assert setting_name(kinds) == name
        assert parse_kinds(name) == kinds  # the name is what --cua-observe takes
    assert setting_name({"vision", "axtree", "screenshot", "som"}) == "som+screenshot+axtree+vision"


@pytest.mark.parametrize("alias,kinds,message", [
    ("computer-use-preview", "som", "--cua-observe som: the computer style acts in pixels and is sent the "
                                    "screenshot only; set-of-marks settings need --cua-agent-style browser"),
    ("computer-use-preview", "axtree", "--cua-observe axtree: the computer style acts in pixels on the screenshot"),
    ("anthropic:claude-sonnet-4-20250514", "som+screenshot",
     "--cua-observe som+screenshot: the computer style acts in pixels and is sent the screenshot only"),
    ("gpt-5.5", "screenshot", "--cua-observe screenshot: the browser style acts on element ids"),
])
def test_a_setting_the_style_cannot_act_in_is_refused(alias: str, kinds: str, message: str) -> None:
    registry = AgentRegistry()
    spec = registry.resolve(alias, {"model_settings": ModelSettings(observe=parse_kinds(kinds), base_url="http://x")})
    with pytest.raises(Exception, match=message.replace("+", r"\+")):
        registry.validate(spec)
    assert check_style(SETTINGS["screenshot+axtree"], "computer", pixels=True) is None


class Config:
    """The option and ini reads of ``resolve_model_settings``."""

    def __init__(self, **options: Any) -> None:
        self.options = options
        self.rootpath = "."

    def getoption(self, name: str, default: Any = None) -> Any:
        return self.options.get(name, default)

    def getini(self, name: str) -> Any:
        return [] if name == "cua_agent_options" else ""


@pytest.mark.parametrize("value", ["0", "1", "3", "5"])
def test_history_takes_0_1_3_and_5(value: str) -> None:
    assert resolve_model_settings(Config(cua_history=value)).history == int(value)  # type: ignore[arg-type]


@pytest.mark.parametrize("options,message", [
    ({"cua_history": "-1"}, "--cua-history: must be 0 or more (past steps kept), got -1"),
    ({"cua_history": "three"}, "--cua-history: not a valid value: 'three'"),
    ({"cua_observe": "som+smell"}, "--cua-observe: unknown observation kind(s) smell"),
])
def test_bad_values_name_the_option_and_the_value(options: dict[str, str], message: str) -> None:
    with pytest.raises(pytest.UsageError) as caught:
        resolve_model_settings(Config(**options))  # type: ignore[arg-type]
    assert message in str(caught.value)


def test_the_setting_reaches_the_settings() -> None:
    settings = resolve_model_settings(Config(cua_observe="som+screenshot+axtree"))  # type: ignore[arg-type]
    assert settings.observe == SETTINGS["som+screenshot+axtree"] and settings.history == DEFAULT_HISTORY


@pytest.mark.parametrize("alias,native", [
    ("computer-use-preview", {"type": "wait"}),
    ("anthropic:claude-sonnet-4-20250514", {"action": "mouse_move", "coordinate": [10, 10]}),
])
def test_the_tree_goes_with_each_computer_step_and_leaves_with_it(alias: str, native: dict[str, Any],
                                                                  server: FakeModelServer) -> None:
    from pytest_cua.agents.models.adapters.base import OMITTED_OBSERVATION

    server.policy = ScriptedPolicy([FakeReply(calls=[FakeCall("computer", native)])] * 4)
    a = agent(alias, server, observe=SETTINGS["screenshot+axtree"], history=1)
    start(a)
    for step in range(4):
        a.step(env_observation(SETTINGS["screenshot+axtree"], step))
    assert not server.violations  # the tree's text after a computer call's output is valid in both protocols
    last = server.requests[-1]
    assert last.text.count('[e2] push button "Save"') == 2 and last.text.count(OMITTED_OBSERVATION) == 2
