"""The computer style: screenshot only, pixel coordinates, through the vendor's own computer-use tool
(OpenAI's ``computer_use_preview`` and GA ``computer``; Claude's ``computer_20250124`` / ``computer_20251124`` and
the ``computer_toolset_20260801`` members).

Claude's actions as its tool documents them: a click, scroll, ``left_mouse_down`` or ``left_mouse_up`` without
``coordinate`` acts at the cursor (the last point the model's actions moved it to); ``cursor_position`` is
answered with that position; ``zoom`` is answered with the region cropped from the screenshot and scaled up
(nothing is executed); ``key`` with ``repeat`` presses N times; ``left_mouse_down`` and ``left_mouse_up`` press and
release the button (a ``mouse_move`` in between drags); ``text`` on a pointer action holds those modifier keys
during it (``ctrl+shift``), as OpenAI's ``keys`` on a click, scroll, move or drag do; ``hold_key`` holds its keys
for its ``duration``; ``triple_click`` is three clicks.

The screenshot is scaled to the tool's display size (``image_size``, default 1024x768 for OpenAI and 1280x800
for Claude, aspect kept) and encoded as the vendor prefers (``images``: JPEG); the model's coordinates are
pixels of that image and map back to screen pixels through the coordinate space. ``done``, ``answer``, ``fail``
and ``ask`` are function tools next to the computer tool, and in a browser ``goto`` and ``back`` too (a headless
page has no address bar; OpenAI's sample app offers the same two); a reply with no call at all ends the task
(its text is the answer of a question task), as SCUBA's harness does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from pytest_cua.agents.action_parser import parse_function_call
from pytest_cua.actions import (Action, ActionError, Answer, Back, Click, DoubleClick, Done, Drag, Forward, Hotkey,
                                Move, Point, Press, RightClick, Scroll, Type, Wait, modifier_names)
from pytest_cua.agents.models.conversation import Call, ComputerTool, Reply, UserTurn
from pytest_cua.agents.models.coords import pixel_space
from pytest_cua.agents.models.styles.base import (TERMINAL_TOOLS, Style, check_ask, map_points, screen_size, size_option,
                                                 target_size)
from pytest_cua.agents.models.styles.browser import BROWSER_TOOLS
from pytest_cua.agents.prompts import load_prompt

if TYPE_CHECKING:
    from pytest_cua.agents.base import AgentContext
    from pytest_cua.observations import Observation
    from pytest_cua.tasks.task import Task

DEFAULT_IMAGE = {"openai": "1024x768", "anthropic": "1280x800"}
WAIT_S = 2.0


class ComputerStyle(Style):
    name = "computer"
    observation_kinds = frozenset({"screenshot"})

    def __init__(self, adapter: Any, options: dict[str, Any], *, tool_kind: str, beta: str | None = None) -> None:
        from pytest_cua.agents.models.images import ImageCache

        super().__init__(adapter, options)
        self.prompt = load_prompt("computer")
        self.tool_kind = tool_kind
        self.beta = beta
        self.max_image = size_option(options.get("image_size", DEFAULT_IMAGE.get(adapter.vendor, "1280x800")))
        self.image_cache = ImageCache()  # an unchanged screen is not prepared again
        self.cursor: Point | None = None  # where the model's actions left the pointer (the image's pixels)
        self._notes: dict[str, str] = {}  # call id -> the answer to give instead of "ok" (cursor_position)
        self._zooms: dict[str, tuple[float, float, float, float]] = {}  # call id -> region (the image's pixels)

    @property
    def vendor_native(self) -> str:
        return "openai" if self.tool_kind in ("computer_use_preview", "computer") else "anthropic"

    def begin(self, task: "Task", context: "AgentContext") -> None:
        super().begin(task, context)
        self.cursor, self._notes, self._zooms = None, {}, {}
        navigation = [t for t in BROWSER_TOOLS if t.name in ("goto", "back")] if self._environment() == "browser" else []
        # the computer tool itself follows the first screenshot's size (turn_for)
        self.adapter.reset("", [*navigation, *TERMINAL_TOOLS])

    def _environment(self) -> str:
        kind = (self.context.options.get("environment") if self.context else None) or "browser"
        return "linux" if kind in ("docker", "desktop") else "browser"

    def turn_for(self, observation: "Observation", previous: Reply | None) -> UserTurn:
        from pytest_cua.agents.models.images import VENDOR_LIMITS, prepare_image

        screen = screen_size(observation)
        assert observation.screenshot is not None
        size = target_size(self.adapter.vendor, screen, self.max_image)
        image = prepare_image(observation.screenshot, size=size, limits=VENDOR_LIMITS.get(self.adapter.vendor),
                              many=self.many_images, cache=self.image_cache)
        self.last_image = image
        self.space = pixel_space(screen, (image.width, image.height))
        if self.adapter.computer is None or self.adapter.computer.display != (image.width, image.height):
            environment = self._environment()
            self.adapter.computer = ComputerTool(self.tool_kind, (image.width, image.height), environment, self.beta)
            self.adapter.system = self.prompt.render(
                environment="web browser" if environment == "browser" else "Linux desktop",
                width=str(image.width), height=str(image.height))
        tree = self.tree_text(observation)  # screenshot+axtree: the tree's text beside the screenshot
        if previous is None:
            return UserTurn(text=self.task_text(), image=image, observation_text=tree)
        results = self.results_for(previous, observation)
        for result in results:
            note = self._notes.pop(result.call_id, None)
            if note is not None and result.text == "ok":
                result.text = note
            region = self._zooms.pop(result.call_id, None)
            if region is not None and not result.is_error:
                result.image = self._zoomed(observation.screenshot, region)
                result.text = "the zoomed region"
        computer = [r for r in results if r.kind == "computer" and r.image is None]
        if computer:
            computer[-1].image = image
            return UserTurn(results=results, observation_text=tree)
        return UserTurn(results=results, image=image, text="The screen now:", observation_text=tree)

    def actions_for(self, reply: Reply, observation: "Observation") -> list[Action]:
        assert self.space is not None and self.task is not None
        if not reply.calls:
            text = reply.text.strip()
            return [Answer(text) if self.task.is_question and text else Done()]
        actions: list[Action] = []
        for call in reply.calls:
            if call.error or call.arguments is None:
                raise ActionError(call.error or f"{call.name}: no arguments")
            if call.kind == "computer":
                native = self._native(call)
                actions += [map_points(a, self.space, scale_scroll=self.vendor_native == "openai") for a in native]
            else:
                actions.append(check_ask(parse_function_call({"name": call.name, "arguments": call.arguments})))
        return actions

    def _native(self, call: Call) -> list[Action]:
        args = call.arguments or {}
        if self.vendor_native == "openai":
            listed = args.get("actions")
            batch = listed if isinstance(listed, list) else [args]
            return [openai_action(a, self._environment()) for a in batch]
        return self._claude(call.id, args)

    # -- Claude's computer actions --------------------------------------------------------------------------
    def _claude(self, call_id: str, args: Mapping[str, Any]) -> list[Action]:
        """One Claude computer action (``computer_2025*`` input, or a toolset member as ``{"action": name,
        ...}``), coordinates still in the image's pixels; the cursor follows."""
        action = args.get("action")
        point = self._coordinate(args, str(action))
        if action == "cursor_position":
            where = self.cursor
            self._notes[call_id] = (f"X={where.x:g},Y={where.y:g}" if where is not None
                                    else "the cursor position is not known yet (no pointer action so far)")
            return [Wait(0)]
        if action == "zoom":
            self._zooms[call_id] = self._region(args)
            return [Wait(0)]
        if action in AT_CURSOR and point is None:
            point = self._at_cursor(str(action))
        if action == "scroll" and point is None:
            point = self.cursor  # else the middle of the screen
        if action == "key" and args.get("repeat") not in (None, 1):
            repeat = args.get("repeat")
            if isinstance(repeat, bool) or not isinstance(repeat, int) or not 1 <= repeat <= 100:
                raise ActionError(f"computer key: 'repeat' must be a whole number from 1 to 100, got {repeat!r}")
            return anthropic_action({"action": "key", "text": args.get("text")}) * repeat
        fixed = dict(args)
        if point is not None:
            fixed["coordinate"] = [point.x, point.y]
        actions = anthropic_action(fixed)
        if point is not None:
            self.cursor = point
        return actions

    def _coordinate(self, args: Mapping[str, Any], action: str) -> Point | None:
        coord = args.get("coordinate")
        if coord is None:
            return None
        if not isinstance(coord, (list, tuple)) or len(coord) != 2 or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in coord):
            raise ActionError(f"computer {action}: 'coordinate' must be [x, y], got {coord!r}")
        return Point(float(coord[0]), float(coord[1]))

    def _at_cursor(self, action: str) -> Point:
        if self.cursor is None:
            raise ActionError(f"computer {action}: no 'coordinate' and the cursor position is not known yet; "
                              "give the coordinate")
        return self.cursor

    def _region(self, args: Mapping[str, Any]) -> tuple[float, float, float, float]:
        region = args.get("region")
        if not isinstance(region, (list, tuple)) or len(region) != 4 or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in region):
            raise ActionError(f"computer zoom: 'region' must be [x0, y0, x1, y1], got {region!r}")
        x0, y0, x1, y1 = (float(v) for v in region)
        assert self.last_image is not None
        if not (0 <= x0 < x1 <= self.last_image.width and 0 <= y0 < y1 <= self.last_image.height):
            raise ActionError(f"computer zoom: region {list(region)} is not within the "
                              f"{self.last_image.width}x{self.last_image.height} screenshot (x0 < x1, y0 < y1)")
        return x0, y0, x1, y1

    def _zoomed(self, screenshot: bytes | None, region: tuple[float, float, float, float]) -> Any:
        """The region (the image's pixels) cut from the new screenshot at screen resolution, scaled up to
        the largest size sent (aspect kept)."""
        import io

        from PIL import Image

        from pytest_cua.agents.models.coords import fit_within
        from pytest_cua.agents.models.images import VENDOR_LIMITS, prepare_image

        assert screenshot is not None and self.space is not None
        x0, y0 = self.space.to_screen(region[0], region[1])
        x1, y1 = self.space.to_screen(region[2], region[3])
        with Image.open(io.BytesIO(screenshot)) as full:
            crop = full.convert("RGB").crop((round(x0), round(y0), max(round(x1), round(x0) + 1),
                                             max(round(y1), round(y0) + 1)))
        buf = io.BytesIO()
        crop.save(buf, format="PNG")
        size = fit_within(crop.width * 1000, crop.height * 1000, *target_size(self.adapter.vendor, self.max_image,
                                                                           self.max_image))
        return prepare_image(buf.getvalue(), size=size, limits=VENDOR_LIMITS.get(self.adapter.vendor),
                             many=self.many_images)


def _xy(args: Mapping[str, Any], kind: str) -> Point:
    x, y = args.get("x"), args.get("y")
    for v in (x, y):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ActionError(f"computer {kind}: 'x' and 'y' must be numbers, got {x!r}, {y!r}")
    return Point(float(x), float(y))  # type: ignore[arg-type]


def _held(args: Mapping[str, Any], kind: str) -> tuple[str, ...]:
    """The keys OpenAI's ``keys`` holds during a click, double click, scroll, move or drag."""
    keys = args.get("keys")
    if keys is None or keys == []:
        return ()
    if not isinstance(keys, list) or not all(isinstance(k, str) and k for k in keys):
        raise ActionError(f"computer {kind}: 'keys' (held during the action) must be a list of key names")
    return modifier_names(kind, keys)


def openai_action(args: Any, environment: str = "browser") -> Action:
    """One OpenAI computer action (coordinates still in the image's pixels)."""
    if not isinstance(args, Mapping):
        raise ActionError(f"computer action must be an object, got {type(args).__name__}")
    kind = args.get("type")
    held = _held(args, str(kind)) if kind != "keypress" else ()
    if kind == "click":
        button = args.get("button", "left")
        if button == "right":
            return RightClick(_xy(args, kind), modifiers=held)
        if button == "wheel":
            return Click(_xy(args, kind), button="middle", modifiers=held)
        if button in ("back", "forward"):
            if environment != "browser":
                raise ActionError(f"computer click: button {button!r} works in a browser only")
            return Back() if button == "back" else Forward()
        if button != "left":
            raise ActionError(f"computer click: unknown button {button!r}")
        return Click(_xy(args, kind), modifiers=held)
    if kind == "double_click":
        return DoubleClick(_xy(args, kind), modifiers=held)
    if kind == "move":
        return Move(_xy(args, kind), modifiers=held)
    if kind == "drag":
        path = args.get("path")
        if not isinstance(path, list) or len(path) < 2 or not all(isinstance(p, Mapping) for p in path):
            raise ActionError("computer drag: 'path' must be a list of at least two {x, y} points")
        return Drag(_xy(path[0], kind), _xy(path[-1], kind), modifiers=held)
    if kind == "scroll":
        return Scroll(dx=float(args.get("scroll_x") or 0), dy=float(args.get("scroll_y") or 0), target=_xy(args, kind),
                      modifiers=held)
    if kind == "keypress":
        keys = args.get("keys")
        if not isinstance(keys, list) or not keys or not all(isinstance(k, str) and k for k in keys):
            raise ActionError("computer keypress: 'keys' must be a non-empty list of key names")
        keys = [k.lower() if len(k) == 1 else k for k in keys]  # "CTRL", "A": the letter, not shift+a
        return Press(keys[0]) if len(keys) == 1 else Hotkey(tuple(keys))
    if kind == "type":
        text = args.get("text")
        if not isinstance(text, str):
            raise ActionError("computer type: 'text' must be a string")
        return Type(text)
    if kind == "wait":
        return Wait(WAIT_S)
    if kind == "screenshot":
        return Wait(0)
    raise ActionError(f"computer: unknown action type {kind!r}")


#: Claude actions that act at the cursor when they have no ``coordinate``
AT_CURSOR = ("left_click", "right_click", "middle_click", "double_click", "triple_click", "left_mouse_down",
             "left_mouse_up")


def anthropic_action(args: Mapping[str, Any]) -> list[Action]:
    """One Claude computer action with its coordinate given (the image's pixels); the style's ``_claude``
    places actions at the cursor and answers zoom and cursor_position first."""
    if args.get("action") == "zoom":
        raise ActionError("computer zoom needs the computer style's screenshot; nothing was done")
    return [parse_function_call({"name": "computer", "arguments": dict(args)})]
