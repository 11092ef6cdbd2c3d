"""What the styles share: the task text, step text, terminal tools and the results of the last calls."""

from __future__ import annotations

import abc
import dataclasses
from typing import TYPE_CHECKING, Any

from pytest_cua.actions import Action, ActionError, Ask, Point, Scroll
from pytest_cua.agents.models.conversation import Call, Reply, ToolResult, ToolSpec, UserTurn

if TYPE_CHECKING:
    from pytest_cua.agents.base import AgentContext
    from pytest_cua.agents.models.adapters.base import Adapter
    from pytest_cua.agents.models.coords import CoordSpace
    from pytest_cua.agents.models.images import PreparedImage
    from pytest_cua.agents.prompts import Prompt
    from pytest_cua.observations import Observation
    from pytest_cua.tasks.task import Task

NOT_DONE = "not done: another call of this step was invalid, so nothing of it was carried out"

TERMINAL_TOOLS = (
    ToolSpec("done", "The task is complete.", {"type": "object", "properties": {}}),
    ToolSpec("answer", "Give the answer to the task's question (the answer only); ends the task.",
             {"type": "object", "properties": {"text": {"type": "string", "description": "the answer"}},
              "required": ["text"]}),
    ToolSpec("fail", "The task cannot be done; say why. Ends the task.",
             {"type": "object", "properties": {"reason": {"type": "string"}}, "required": ["reason"]}),
    ToolSpec("ask", "Ask the user a question when the screen cannot tell you what you need; the reply comes "
                    "with the next observation.",
             {"type": "object", "properties": {"question": {"type": "string"}}, "required": ["question"]}),
)


class Style(abc.ABC):
    """One way of showing the task to a model and reading its actions back."""

    name: str = ""
    prompt: "Prompt"
    observation_kinds: frozenset[str] = frozenset({"screenshot"})
    #: ``--cua-observe`` as the run gives it (set by the provider): the prompt then follows that setting
    #: (``observation_settings``); None: the style shows what it always has
    observe: frozenset[str] | None = None

    def __init__(self, adapter: "Adapter", options: dict[str, Any]) -> None:
        self.adapter = adapter
        self.options = options
        self.task: "Task | None" = None
        self.context: "AgentContext | None" = None
        self.last_image: "PreparedImage | None" = None
        self.space: "CoordSpace | None" = None
        self.kinds: frozenset[str] | None = None  # the episode's observation kinds when a setting was chosen

    @property
    def many_images(self) -> bool:
        """Whether a request may carry more images than the vendor's limit for full-size ones (Anthropic: over
        20 images, each at most 2000 px a side): then every image is prepared within the stricter limit."""
        from pytest_cua.agents.models.images import VENDOR_LIMITS

        limits = VENDOR_LIMITS.get(self.adapter.vendor)
        per_step = 2 if self.kinds is not None and {"som", "screenshot"} <= self.kinds else 1
        return bool(limits and limits.many_threshold and self.adapter.keep_images * per_step > limits.many_threshold)

    def begin(self, task: "Task", context: "AgentContext") -> None:
        self.task, self.context = task, context
        self.last_image, self.space = None, None
        self.kinds = (frozenset(context.observation_kinds) or self.observe) if self.observe is not None else None

    def tree_text(self, observation: "Observation") -> str | None:
        """The accessibility tree's text when the chosen setting has ``axtree`` (and the observation has it)."""
        if self.kinds is None or "axtree" not in self.kinds or observation.axtree is None:
            return None
        return "Accessibility tree (act on an element by its [id]):\n" + observation.axtree

    @abc.abstractmethod
    def turn_for(self, observation: "Observation", previous: Reply | None) -> UserTurn:
        """The user turn for this step (``previous``: the reply whose calls this step answers)."""

    @abc.abstractmethod
    def actions_for(self, reply: Reply, observation: "Observation") -> list[Action]:
        """The typed actions of a reply; ActionError (shown to the model) when it cannot be used."""

    def error_turn(self, reply: Reply, message: str) -> UserTurn:
        """Tell the model its last output could not be used: every call is answered, nothing was done."""
        if not reply.calls:
            return UserTurn(text=f"Your last output could not be used: {message}. Nothing was done. "
                                 "Reply again, in the required format.")
        results = []
        for call in reply.calls:
            text = f"error: {message}" if call is _culprit(reply, message) else NOT_DONE
            results.append(ToolResult(call.id, text, kind=call.kind, is_error=True, safety_checks=call.safety_checks,
                                      image=self.last_image if call.kind == "computer" else None))
        return UserTurn(results=results)

    # -- shared text -----------------------------------------------------------------------------------
    def task_text(self) -> str:
        assert self.task is not None and self.context is not None
        lines = [f"Task: {self.task.instruction}"]
        if self.context.demos:  # demonstration-augmented mode: the demonstration text and the knowledge card
            if self.task.demonstration_text:
                lines.append(f"\nA demonstration of a similar task:\n{self.task.demonstration_text}")
            card = self.task.knowledge_text()
            if card:
                lines.append(f"\nKnowledge card (conventions, formulas and menu paths for this task):\n{card}")
        return "\n".join(lines)

    def results_for(self, previous: Reply | None, observation: "Observation") -> list[ToolResult]:
        """Answers to every call of ``previous``: ok, the last action's error, or the human's reply (the
        computer style attaches the new screenshot to the newest computer result)."""
        if previous is None:
            return []
        results = []
        for call in previous.calls:
            if call.name == "ask" and call.kind == "function":
                text = f"the user replied: {observation.human_reply}" if observation.human_reply is not None \
                    else "no reply"
            elif observation.last_error:
                text = f"error: {observation.last_error}"
            else:
                text = "ok"
            results.append(ToolResult(call.id, text, kind=call.kind, is_error=bool(observation.last_error),
                                      safety_checks=call.safety_checks))
        return results


#: Claude scales larger images down before it looks at them and answers in that space: send at most this
ANTHROPIC_MAX_SIDE, ANTHROPIC_MAX_PIXELS = 1568, 1_150_000


def target_size(vendor: str, screen: tuple[int, int], bound: tuple[int, int]) -> tuple[int, int]:
    """The size to send a screenshot at: within ``bound`` (aspect kept), and within what the vendor's model
    looks at without rescaling it (Claude), so the model's pixels are the ones we map back."""
    from pytest_cua.agents.models.coords import fit_within

    if vendor == "anthropic":
        return fit_within(screen[0], screen[1], min(bound[0], ANTHROPIC_MAX_SIDE), min(bound[1], ANTHROPIC_MAX_SIDE),
                          max_pixels=ANTHROPIC_MAX_PIXELS)
    return fit_within(screen[0], screen[1], *bound)


def _culprit(reply: Reply, message: str) -> Call:
    for call in reply.calls:
        if call.error or call.name in message:
            return call
    return reply.calls[0]


def map_points(action: Action, space: "CoordSpace", *, scale_scroll: bool = True) -> Action:
    """``action`` with every point mapped from the model's space to screen pixels; scroll amounts too when
    they are pixels of the image (``scale_scroll``), not wheel clicks."""
    changes: dict[str, Any] = {}
    for name in ("target", "source", "destination"):
        value = getattr(action, name, None)
        if isinstance(value, Point):
            x, y = space.to_screen(value.x, value.y)
            changes[name] = Point(round(x, 1), round(y, 1))
    if scale_scroll and isinstance(action, Scroll) and space.kind in ("pixels", "smart_resize"):
        changes["dx"] = round(action.dx * space.screen_width / space.width, 1)
        changes["dy"] = round(action.dy * space.screen_height / space.height, 1)
    return dataclasses.replace(action, **changes) if changes else action


def check_ask(action: Action) -> Action:
    if isinstance(action, Ask) and not action.question.strip():
        raise ActionError("ask: 'question' must not be empty")
    return action


def size_option(text: str) -> tuple[int, int]:
    """``--cua-agent-option image_size=1280x800`` as (width, height) (checked when the agent is validated)."""
    w, _, h = str(text).lower().partition("x")
    return int(w), int(h)


def screen_size(observation: "Observation") -> tuple[int, int]:
    from pytest_cua.agents.models.images import image_size

    if observation.screenshot is None:
        from pytest_cua.agents.base import AgentError

        raise AgentError("the environment sent no screenshot: observe with screenshot (--cua-observe)")
    return image_size(observation.screenshot)
