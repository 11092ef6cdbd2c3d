"""Choosing an option of an ARIA combobox: Lightning's ``lightning-combobox`` (a picklist on Salesforce and on the
embedded org), whose control is a button (or input) with ``role=combobox`` that opens a ``role=listbox`` of
``role=option`` items. ``select_option`` on such an element opens it when closed, clicks the option whose
label (or value) is the one asked for, and reports the label chosen, as a person does with the pointer.

The listbox is found by the combobox's ``aria-controls`` (Lightning renders it beside the control, inside the
same component's shadow root; Playwright's CSS engine pierces open and synthetic shadow roots), else as the one
listbox visible in the frame after opening."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_cua.envs.browser.errors import ActionFailed

if TYPE_CHECKING:
    from playwright.sync_api import Frame, Locator

#: the options of an open listbox: [label, value] each (label: the option's title, else its visible text)
_OPTIONS_JS = """(box) => {
  const out = [];
  const visit = (node) => {
    const kids = node.shadowRoot ? node.shadowRoot.children : node.children;
    for (const el of Array.from(kids || [])) {
      if (el.getAttribute('role') === 'option') {
        const titled = el.querySelector('[title]');
        const label = (titled && titled.getAttribute('title')) || el.innerText || el.textContent || '';
        out.push([label.replace(/\\s+/g, ' ').trim(), el.getAttribute('data-value') || '']);
      }
      visit(el);
    }
  };
  visit(box);
  return out;
}"""


def _listbox(frame: "Frame", combobox: "Locator", timeout_ms: float) -> "Locator":
    controls = combobox.get_attribute("aria-controls", timeout=timeout_ms)
    if controls:
        box = frame.locator(f'[id="{controls}"]')
        if box.count() == 1:
            box.wait_for(state="visible", timeout=timeout_ms)
            return box
    boxes = frame.locator("[role=listbox]:visible")
    boxes.first.wait_for(state="visible", timeout=timeout_ms)
    if boxes.count() != 1:
        raise ActionFailed(f"the combobox opened {boxes.count()} lists; choose the option by clicking it")
    return boxes.first


def choose(frame: "Frame", combobox: "Locator", option: str, timeout_ms: float) -> str:
    """Open ``combobox`` (when closed) and click the option labelled ``option`` (exactly, else ignoring case,
    else by its value); the label chosen. ActionFailed naming the options when there is none such."""
    if combobox.get_attribute("aria-disabled", timeout=timeout_ms) == "true" or combobox.is_disabled():
        raise ActionFailed("the combobox is disabled")
    if combobox.get_attribute("aria-expanded") != "true":
        combobox.click(timeout=timeout_ms)
    box = _listbox(frame, combobox, timeout_ms)
    options: list[list[str]] = box.evaluate(_OPTIONS_JS)
    labels = [label for label, _ in options]
    want = " ".join(option.split())
    index = next((i for i, label in enumerate(labels) if label == want), None)
    if index is None:
        index = next((i for i, label in enumerate(labels) if label.lower() == want.lower()), None)
    if index is None:
        index = next((i for i, (_, value) in enumerate(options) if value and value == option), None)
    if index is None:
        combobox.press("Escape")
        shown = ", ".join(repr(label) for label in labels[:30]) or "none"
        raise ActionFailed(f"no option {option!r} in the combobox (options: {shown})")
    box.locator("[role=option]").nth(index).click(timeout=timeout_ms)
    return labels[index]
