"""Organization-wide sharing defaults: a sharing model by its Setup label and the other way round."""

from __future__ import annotations

from typing import Any

from .text import norm

SHARING_LABELS = {
    "Private": "Private",
    "Public Read Only": "Read",
    "Public Read/Write": "ReadWrite",
    "Public Read/Write/Transfer": "ReadWriteTransfer",
    "Public Full Access": "FullAccess",
    "Controlled by Parent": "ControlledByParent",
}


def sharing_model(value: Any) -> str:
    """The sharing model of a Setup label or model name: "Public Read Only" -> "Read"."""
    text = str(value or "").strip()
    for label_text, model in SHARING_LABELS.items():
        if norm(text) in (norm(label_text), norm(model)):
            return model
    return text


def sharing_label(model: str) -> str:
    """The Setup label of a sharing model: "Read" -> "Public Read Only"."""
    for label_text, value in SHARING_LABELS.items():
        if value == model:
            return label_text
    return model
