"""The computer style for open VLMs on an OpenAI-compatible server (UI-TARS-1.5, OpenCUA, Qwen2.5-VL): the
model's own prompt and text grammar (``pytest_cua.agents.models.vlm``), screenshots sent at the size of the
model's coordinate space, and its text parsed into typed actions (never executed)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pytest_cua.actions import Action, Point
from pytest_cua.agents.models.conversation import Reply, UserTurn
from pytest_cua.agents.models.styles.base import Style, screen_size

if TYPE_CHECKING:
    from pytest_cua.agents.base import AgentContext
    from pytest_cua.observations import Observation
    from pytest_cua.tasks.task import Task


class VLMStyle(Style):
    name = "computer"
    observation_kinds = frozenset({"screenshot"})

    def __init__(self, adapter: Any, options: dict[str, Any], *, model: str) -> None:
        super().__init__(adapter, options)
        from pytest_cua.agents.models.images import ImageCache
        from pytest_cua.agents.models.vlm import grammar_for_model
        from pytest_cua.agents.prompts import Prompt
        import hashlib

        self.grammar = grammar_for_model(str(options.get("grammar") or model))
        self.image_cache = ImageCache()  # an unchanged screen is not prepared again
        self.pointer: Any = None
        # the prompt's identity: its text for a placeholder instruction on a 1920x1080 screen
        text = self.grammar.system_prompt("{instruction}", ask=True, screen=(1920, 1080))
        self.prompt = Prompt(name=f"vlm-{self.grammar.name}", version=self.grammar.prompt_version, text=text,
                             sha256=hashlib.sha256(text.encode("utf-8")).hexdigest())

    def begin(self, task: "Task", context: "AgentContext") -> None:
        super().begin(task, context)
        self.adapter.reset("You are a helpful assistant.", [])

    def turn_for(self, observation: "Observation", previous: Reply | None) -> UserTurn:
        from pytest_cua.agents.models.images import VENDOR_LIMITS, prepare_image

        assert self.task is not None and self.context is not None
        screen = screen_size(observation)
        self.space = self.grammar.image_space(screen)
        assert observation.screenshot is not None
        self.last_image = prepare_image(observation.screenshot, size=(self.space.width, self.space.height),
                                        limits=VENDOR_LIMITS.get(self.adapter.vendor), many=self.many_images,
                                        cache=self.image_cache)
        if (self.last_image.width, self.last_image.height) != (self.space.width, self.space.height):
            self.space = type(self.space)(self.space.kind, self.last_image.width, self.last_image.height,
                                          screen[0], screen[1])
        if previous is None:
            self.pointer = None
            instruction = self.task_text().removeprefix("Task: ")
            return UserTurn(text=self.grammar.system_prompt(instruction, ask=True, screen=screen), image=self.last_image,
                            observation_text=self.tree_text(observation))
        notes = []
        if observation.last_error:
            notes.append(f"The last action failed: {observation.last_error}")
        if observation.human_reply is not None:
            notes.append(f"The user replied: {observation.human_reply}")
        return UserTurn(text="\n".join(notes) or None, image=self.last_image, observation_text=self.tree_text(observation))

    def actions_for(self, reply: Reply, observation: "Observation") -> list[Action]:
        assert self.space is not None
        parsed = self.grammar.parse(reply.text, self.space, pointer=self.pointer)
        if parsed.thought and not reply.reasoning:
            reply.reasoning = parsed.thought
        for action in parsed.actions:  # where the pointer is after this turn (a drag from "here" needs it)
            for name in ("destination", "target"):
                value = getattr(action, name, None)
                if isinstance(value, Point):
                    self.pointer = value
                    break
        return list(parsed.actions)
