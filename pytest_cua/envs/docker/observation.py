"""What the agent sees of a desktop container: ``observe``.

Kinds: ``screenshot``; ``axtree`` and ``som`` from the accessibility tree (AT-SPI, read in the container by
``executor_axtree.py``; text, elements and marks made by ``pytest_cua.envs.docker.axtree``); ``vision`` adds
elements found on the screenshot by a detector (``vision_marks``) in the windows that export no tree, with
ids after the tree's, drawn with them when ``som`` is asked; ``dom`` is not offered (the observation says
so). The elements of the last observation stay with the container (``Box``): an action whose target is one of
their ids goes to the centre of that element's box on the screen, a detected one's as a tree one's.
"""

from __future__ import annotations

import json
import time
from typing import Any

from pytest_cua.envs.base import EnvironmentCrash
from pytest_cua.envs.docker.axtree import build_tree, missing_windows
from pytest_cua.envs.docker.client import ExecutorError
from pytest_cua.envs.docker.containers import Box
from pytest_cua.envs.docker.vision_marks import detect, vision_elements
from pytest_cua.envs.marks import draw_marks
from pytest_cua.observations import Element, Observation

UNSUPPORTED_KINDS = ("dom",)
TREE_KINDS = frozenset({"axtree", "som", "vision"})  # vision: which windows have no tree, and no overlap with it
SHOT_KINDS = frozenset({"screenshot", "som", "vision"})
AXTREE_IO_TIMEOUT_S = 60.0  # the executor bounds its walk (20 s) and the walk's process (30 s) itself


def observe(box: Box, kinds: frozenset[str]) -> Observation:
    """The asked kinds of the container's screen; the elements of an accessibility tree become the
    container's id map. A broken executor connection is an ``EnvironmentCrash``."""
    timings: dict[str, float] = {}
    tree_answer: dict[str, Any] | None = None
    try:
        wins = box.client.request("windows")
        if kinds & TREE_KINDS:  # first: the screenshot then shows the screen the ids were given on
            started = time.perf_counter()
            tree_answer = _axtree(box)
            timings["axtree_ms"] = (time.perf_counter() - started) * 1000
        shot = None
        if kinds & SHOT_KINDS:
            started = time.perf_counter()
            shot = box.client.screenshot()
            timings["screenshot_ms"] = (time.perf_counter() - started) * 1000
            box.screen = png_size(shot) or box.screen
    except ExecutorError as exc:
        raise EnvironmentCrash(f"container {box.container.name}: {exc}") from None
    titles = [w["title"] for w in wins["windows"]]
    extra: dict[str, Any] = {"windows": titles, "active_window": wins["active_title"]}
    obs = Observation(screenshot=shot if "screenshot" in kinds else None, title=wins["active_title"], extra=extra)
    unsupported = sorted(set(kinds) & set(UNSUPPORTED_KINDS))
    if unsupported:
        extra["unsupported_kinds"] = unsupported
        extra["note"] = (f"{', '.join(unsupported)} not available on the docker desktop; use axtree or som "
                         f"(the accessibility tree) or screenshot")
    if tree_answer is None:
        box.elements = {}  # ids name what the last observation showed: this one showed none
    else:
        _add_tree(box, obs, kinds, tree_answer, titles)
        if "vision" in kinds and shot is not None:
            started = time.perf_counter()
            try:
                _add_vision(box, obs, kinds, shot, wins["windows"], bool(tree_answer.get("available")))
            except ExecutorError as exc:
                raise EnvironmentCrash(f"container {box.container.name}: {exc}") from None
            timings["vision_ms"] = (time.perf_counter() - started) * 1000
        if "som" in kinds and shot is not None:
            started = time.perf_counter()
            obs.som = draw_marks(shot, obs.elements)
            timings["som_ms"] = (time.perf_counter() - started) * 1000
    extra["timings_ms"] = {k: round(v, 1) for k, v in timings.items()}
    return obs


def _add_vision(box: Box, obs: Observation, kinds: frozenset[str], shot: bytes, windows: list[dict[str, Any]],
                tree_available: bool) -> None:
    """Marks found on the screenshot in the windows without an accessibility tree (all of them when the tree is
    unavailable), none meeting a tree element, as elements numbered after the tree's: into ``obs`` and the
    container's id map. The tree's text, when asked, lists them after it."""
    silent = set((obs.extra.get("axtree") or {}).get("windows_without_tree") or []) if tree_available else None
    regions, searched = [], []
    for window in windows:
        title = str(window.get("title") or "")
        if silent is not None and title not in silent:
            continue
        area = _client_area(box, str(window.get("id") or ""))
        if area is not None:
            regions.append(area)
            searched.append(title)
    marks = detect(shot, regions, avoid=[e.bbox for e in obs.elements.values() if e.bbox is not None])
    found = vision_elements(marks, len(box.elements) + 1)
    box.elements = {**box.elements, **found}
    obs.elements = {**obs.elements, **found}
    obs.extra["vision"] = {"windows": searched, "marks": len(found),
                           "widgets": sum(1 for e in found.values() if e.role == "detected_widget")}
    if "axtree" in kinds and found:
        obs.axtree = (obs.axtree or "") + "\n(marks found on the screenshot in windows without an accessibility " \
            "tree)\n" + "\n".join(vision_line(e) for e in found.values())


def vision_line(element: Element) -> str:
    """A detected element's line in the tree's text: its id, what it looks like and its box on the screen."""
    x, y, w, h = (int(v) for v in element.bbox or (0, 0, 0, 0))
    return f'[{element.id}] {element.role} "" box=[{x}, {y}, {w}, {h}]'


def _client_area(box: Box, window: str) -> tuple[int, int, int, int] | None:
    """A window's client area on the screen (wmctrl's hex id), None when the window is gone."""
    try:
        number = str(int(window, 16)) if window.lower().startswith("0x") else window
        g = box.client.request("window_geometry", window=number)
    except ValueError:
        return None
    except ExecutorError as exc:
        if exc.broken:
            raise
        return None
    return int(g["x"]), int(g["y"]), int(g["width"]), int(g["height"])


def _axtree(box: Box) -> dict[str, Any]:
    """The executor's accessibility walk; an op that fails (not the connection) is an unavailable tree."""
    try:
        return box.client.request("axtree", io_timeout=AXTREE_IO_TIMEOUT_S)
    except ExecutorError as exc:
        if exc.broken:
            raise
        return {"available": False, "reason": str(exc)}

def _add_tree(box: Box, obs: Observation, kinds: frozenset[str], answer: dict[str, Any],
              titles: list[str]) -> None:
    """The tree's text and elements into ``obs``; the elements become the container's id map (an
    unavailable tree empties it: no id resolves to an older screen)."""
    if answer.get("screen"):
        box.screen = (int(answer["screen"][0]), int(answer["screen"][1]))
    if not answer.get("available"):
        box.elements = {}
        reason = str(answer.get("reason") or "unknown")
        obs.extra["axtree_unavailable"] = reason
        if "axtree" in kinds:
            obs.axtree = f"(no accessibility tree: {reason})"
        return
    tree = build_tree(answer.get("nodes") or [], box.screen)
    box.elements = dict(tree.elements)
    obs.elements = tree.elements
    apps = list(answer.get("apps") or [])
    silent = missing_windows(titles, apps)
    if "axtree" in kinds:
        note = ("\n(windows without an accessibility tree, see the screenshot: "
                + "; ".join(json.dumps(t, ensure_ascii=False) for t in silent) + ")") if silent else ""
        obs.axtree = (tree.text or "(no program on the screen exports an accessibility tree)") + note
    obs.extra["axtree"] = {"apps": [{"name": a.get("name"), "nodes": a.get("nodes")} for a in apps],
                           "nodes": tree.nodes, "elements": len(tree.elements),
                           "truncated": list(answer.get("truncated") or []),
                           "walk_ms": round(float(answer.get("walk_s") or 0) * 1000, 1)}
    if silent:
        obs.extra["axtree"]["windows_without_tree"] = silent


def png_size(png: bytes) -> tuple[int, int] | None:
    """Width and height from a PNG's header (no decoding)."""
    if len(png) >= 24 and png[:8] == b"\x89PNG\r\n\x1a\n":
        return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    return None
