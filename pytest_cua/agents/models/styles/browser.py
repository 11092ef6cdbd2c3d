"""The browser style (SCUBA's "Browser-Use" setting): a set-of-marks screenshot plus the element list, and
function tools that are our typed actions by element id."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pytest_cua.agents.action_parser import parse_function_call
from pytest_cua.actions import Action, ActionError
from pytest_cua.agents.models.conversation import Reply, ToolSpec, UserTurn
from pytest_cua.agents.models.elements import render_elements
from pytest_cua.agents.models.styles.base import TERMINAL_TOOLS, Style, check_ask, size_option, target_size
from pytest_cua.agents.prompts import load_prompt

if TYPE_CHECKING:
    from pytest_cua.agents.base import AgentContext
    from pytest_cua.agents.models.images import PreparedImage
    from pytest_cua.observations import Observation
    from pytest_cua.tasks.task import Task

_ID = {"element_id": {"type": "string", "description": "id of an element in the current list, like e12"}}


def _tool(name: str, description: str, properties: dict[str, Any] | None = None,
          required: tuple[str, ...] = ()) -> ToolSpec:
    schema: dict[str, Any] = {"type": "object", "properties": dict(properties or {})}
    if required:
        schema["required"] = list(required)
    return ToolSpec(name, description, schema)


BROWSER_TOOLS: tuple[ToolSpec, ...] = (
    _tool("click", "Click an element.", _ID, ("element_id",)),
    _tool("double_click", "Double-click an element.", _ID, ("element_id",)),
    _tool("right_click", "Right-click an element.", _ID, ("element_id",)),
    _tool("hover", "Move the pointer over an element.", _ID, ("element_id",)),
    _tool("fill", "Replace the text of an input or text area with `text`.",
          {**_ID, "text": {"type": "string"}}, ("element_id", "text")),
    _tool("type", "Type text key by key, into the element when given, else where the focus is.",
          {"text": {"type": "string"}, **_ID}, ("text",)),
    _tool("clear", "Empty an input.", _ID, ("element_id",)),
    _tool("select_option", "Choose an option of a drop-down list by its label.",
          {**_ID, "option": {"type": "string"}}, ("element_id", "option")),
    _tool("check", "Tick a checkbox or choose a radio button.", _ID, ("element_id",)),
    _tool("uncheck", "Untick a checkbox.", _ID, ("element_id",)),
    _tool("press", "Press one key, e.g. Enter, Tab, Escape, ArrowDown.", {"key": {"type": "string"}}, ("key",)),
    _tool("hotkey", "Press keys together, e.g. [\"Control\", \"a\"].",
          {"keys": {"type": "array", "items": {"type": "string"}}}, ("keys",)),
    _tool("scroll", "Scroll the page (or the element) by `amount` pixels.",
          {"direction": {"type": "string", "enum": ["up", "down", "left", "right"]},
           "amount": {"type": "number", "description": "pixels, default 600"}, **_ID}, ("direction",)),
    _tool("goto", "Open a URL in the current tab.", {"url": {"type": "string"}}, ("url",)),
    _tool("back", "Go back in the tab's history."),
    _tool("forward", "Go forward in the tab's history."),
    _tool("new_tab", "Open a new tab, at `url` when given.", {"url": {"type": "string"}}),
    _tool("switch_tab", "Make tab `index` (0 is the first) the active one.", {"index": {"type": "integer"}},
          ("index",)),
    _tool("close_tab", "Close tab `index` (the active one when not given).", {"index": {"type": "integer"}}),
    _tool("wait", "Wait for the page, in seconds.", {"seconds": {"type": "number"}}),
)


class BrowserStyle(Style):
    name = "browser"
    observation_kinds = frozenset({"som", "axtree"})

    def __init__(self, adapter: Any, options: dict[str, Any]) -> None:
        from pytest_cua.agents.models.images import ImageCache

        super().__init__(adapter, options)
        self.prompt = load_prompt("browser")
        self.max_image = size_option(options.get("image_size", "1280x800"))
        self.image_cache = ImageCache()  # an unchanged screen is not prepared again

    def begin(self, task: "Task", context: "AgentContext") -> None:
        super().begin(task, context)
        self.adapter.reset(self.prompt.text, [*BROWSER_TOOLS, *TERMINAL_TOOLS])

    def turn_for(self, observation: "Observation", previous: Reply | None) -> UserTurn:
        from pytest_cua.agents.models.images import VENDOR_LIMITS, image_size, prepare_image

        def prepared(png: bytes) -> "PreparedImage":
            size = target_size(self.adapter.vendor, image_size(png), self.max_image)
            return prepare_image(png, size=size, limits=VENDOR_LIMITS.get(self.adapter.vendor), many=self.many_images,
                                 cache=self.image_cache)

        png = observation.som or observation.screenshot
        self.last_image = prepared(png) if png is not None else None
        # som+screenshot: the plain screenshot goes after the marked one
        both = self.kinds is not None and {"som", "screenshot"} <= self.kinds and observation.som is not None \
            and observation.screenshot is not None
        more = [prepared(observation.screenshot)] if both and observation.screenshot is not None else []
        lines = [] if previous is not None else [self.task_text(), ""]
        lines += [f"Step {observation.step + 1}.", f"URL: {observation.url}", f"Title: {observation.title}"]
        if len(observation.tabs) > 1:
            lines.append("Tabs: " + "; ".join(f"{i}: {t.get('title', '')}{' (active)' if t.get('active') else ''}"
                                              for i, t in enumerate(observation.tabs)))
        if observation.last_error:
            lines.append(f"Your last action failed: {observation.last_error}")
        if observation.human_reply is not None:
            lines.append(f"The user replied: {observation.human_reply}")
        dialogs = observation.extra.get("dialogs") if observation.extra else None
        if dialogs:
            lines.append("Dialogs shown: " + "; ".join(str(d) for d in dialogs))
        if more:
            lines.append("Images: the screen with numbered marks (the element ids), then the screen without them.")
        return UserTurn(text="\n".join(lines), image=self.last_image, results=self.results_for(previous, observation),
                        observation_text=self.tree_text(observation) or self.element_text(observation),
                        more_images=more)

    def element_text(self, observation: "Observation") -> str:
        """The list of the marked elements (the tree's and the detector's)."""
        elements = render_elements(observation.elements.values()) if observation.elements else ""
        return "Interactive elements:\n" + (elements or "(none found)")

    def actions_for(self, reply: Reply, observation: "Observation") -> list[Action]:
        if not reply.calls:
            raise ActionError("no tool was called: act with a tool, or call done, answer or fail")
        actions = []
        for call in reply.calls:
            if call.error or call.arguments is None:
                raise ActionError(call.error or f"{call.name}: no arguments")
            action = check_ask(parse_function_call({"name": call.name, "arguments": call.arguments}))
            for field in ("target", "source", "destination"):
                value = getattr(action, field, None)
                if isinstance(value, str) and value not in observation.elements:
                    raise ActionError(f"{call.name}: element {value!r} is not in the current element list; "
                                      "use an id from the list of this step")
            actions.append(action)
        return actions
