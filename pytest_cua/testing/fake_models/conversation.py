"""A request reduced to one normalised conversation, whatever the vendor protocol: messages with their texts,
decoded images, tool calls and tool outputs (``Conversation``), and the decoding of the images a request carries."""

from __future__ import annotations

import base64
import binascii
import io
import re
from dataclasses import dataclass, field
from typing import Any

from PIL import Image as PILImage


@dataclass
class DecodedImage:
    """A decoded image of the request."""

    data: bytes
    size: tuple[int, int]
    b64_len: int
    declared_type: str
    actual_type: str
    where: str
    zoom: bool = False


@dataclass
class HistoryCall:
    """A tool call in the history."""

    id: str
    name: str
    kind: str  # "function" | "computer"
    screenshot: bool = False
    action: str = ""


@dataclass
class HistoryResult:
    """A tool call's output in the history."""

    call_id: str
    kind: str  # "function" | "computer" | "" (any)
    texts: list[str] = field(default_factory=list)
    images: list[DecodedImage] = field(default_factory=list)


@dataclass
class HistoryMessage:
    """A turn of the history: role system, user, assistant or tool."""

    role: str
    texts: list[str] = field(default_factory=list)
    images: list[DecodedImage] = field(default_factory=list)
    calls: list[HistoryCall] = field(default_factory=list)
    results: list[HistoryResult] = field(default_factory=list)


@dataclass
class Conversation:
    """A request reduced to what the checks, the policy and the usage need."""

    items: list[Any] = field(default_factory=list)
    messages: list[HistoryMessage] = field(default_factory=list)
    images: list[DecodedImage] = field(default_factory=list)
    tool_names: list[str] = field(default_factory=list)
    segments: list[Any] = field(default_factory=list)
    breakpoints: list[int] | None = None
    problems: list[str] = field(default_factory=list)

    def message(self, role: str) -> HistoryMessage:
        """Start a new message."""
        self.messages.append(HistoryMessage(role))
        return self.messages[-1]

    def add_image(self, target: HistoryMessage | HistoryResult, image: DecodedImage | None) -> None:
        """Add a decoded image to a message or a tool output (and to the request's images)."""
        if image is not None:
            target.images.append(image)
            self.images.append(image)

    def calls_by_id(self) -> dict[str, HistoryCall]:
        """Every tool call of the history by id."""
        return {call.id: call for m in self.messages for call in m.calls}

    def screenshot(self) -> DecodedImage | None:
        """The newest image that is a screenshot (not the answer to a zoom action)."""
        return next((image for image in reversed(self.images) if not image.zoom), None)


DATA_URL = re.compile(r"data:(?P<type>[\w.+/-]+);base64,(?P<data>.*)", re.S)


def decode_image(b64: Any, declared_type: str, where: str, problems: list[str]) -> DecodedImage | None:
    """Decode a base64 image, or record why it does not decode."""
    try:
        data = base64.b64decode(b64, validate=True)
        with PILImage.open(io.BytesIO(data)) as image:
            size, actual = image.size, PILImage.MIME.get(image.format or "", "")
    except (binascii.Error, TypeError, ValueError, OSError):
        problems.append(f"{where}: the image does not decode (expected a base64 PNG, JPEG, GIF or WebP)")
        return None
    return DecodedImage(data, size, len(b64), declared_type, actual, where)


def data_url_image(url: Any, where: str, problems: list[str]) -> DecodedImage | None:
    """Decode an image given as a data URL, or record why it cannot be used."""
    match = DATA_URL.fullmatch(url) if isinstance(url, str) else None
    if match is None:
        problems.append(f"{where}: the image must be a base64 data URL (the fake server fetches nothing)")
        return None
    return decode_image(match["data"], match["type"], where, problems)


def text_parts(content: Any, kinds: tuple[str, ...]) -> list[str]:
    """The texts of a content string or list of parts."""
    if isinstance(content, str):
        return [content]
    return [part["text"] for part in content or [] if part.get("type") in kinds]
