"""The desktop's accessibility tree (AT-SPI) and set-of-marks, against LibreOffice Calc in a real container:
named roles with boxes on the screen, ids stable on an unchanged screen, an id as an action's target, a clear
error for an id the last observation did not show, the marks image. Plus the text and id rules on made-up
nodes (no container)."""

from __future__ import annotations

import io
import time
from typing import Any, Iterator

import pytest

from .desktop_helpers import make_env, wait_for
from pytest_cua.actions import Action
from pytest_cua.envs.docker.axtree import build_tree, target_point
from pytest_cua.tasks.task import Task

OFFICE_IMAGE = "cua-desktop-office"
SCREEN = (1280, 800)
docker = pytest.mark.docker


@pytest.fixture(scope="module")
def calc(docker_client: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One office container (for the module) with a small workbook open in Calc."""
    openpyxl = pytest.importorskip("openpyxl")
    from pytest_cua.envs.docker.images import build_image
    from pytest_cua.envs.docker.recipes import load_recipe

    build_image(load_recipe(OFFICE_IMAGE), client=docker_client, progress=lambda line: None)  # cached by hash
    book = tmp_path_factory.mktemp("axtree") / "marks.xlsx"
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Data"
    sheet.append(["Region", "Units"])
    for i in range(1, 6):
        sheet.append([f"R{i}", i * 7])
    workbook.save(book)
    env = make_env(OFFICE_IMAGE)
    try:
        env.begin_task(Task(id="axtree", suite="desktop-tests", instruction="-", extra={
            "start_files": [{"src": str(book), "dest": "/root/marks.xlsx"}],
            "start_command": ["soffice", "--calc", "--norestore", "/root/marks.xlsx"],
            "window": "marks.xlsx", "window_timeout_s": 120}))
        yield env
    finally:
        env.close()


def observe(env: Any, *kinds: str) -> Any:
    return env.observe(frozenset(kinds))


def element(obs: Any, role: str, name: str) -> Any:
    found = [e for e in obs.elements.values() if e.role == role and e.name == name]
    assert found, f"no {role} {name!r} among {len(obs.elements)} elements:\n{obs.axtree}"
    return found[0]


@docker
def test_tree_has_named_roles_values_and_boxes_on_the_screen(calc: Any) -> None:
    assert calc.box.client.request("ping")["accessibility"]["enabled"] is True
    obs = observe(calc, "axtree")
    assert obs.extra["axtree"]["apps"][0]["name"] == "soffice" and not obs.extra["axtree"]["truncated"]
    assert obs.axtree.startswith('application "soffice"')
    a2 = element(obs, "table cell", "A2")
    assert a2.attributes.get("value") == "R1"
    assert element(obs, "table cell", "B3").attributes.get("value") == "14"
    save = element(obs, "push button", "Save")
    assert '[%s] push button "Save"' % save.id in obs.axtree
    element(obs, "menu", "File")
    for el in obs.elements.values():
        x, y, w, h = el.bbox
        assert w > 0 and h > 0 and x < SCREEN[0] and y < SCREEN[1] and x + w > 0 and y + h > 0, el
    # cells below one another: the grid's boxes are consistent (a row is 15 to 30 px high)
    a3 = element(obs, "table cell", "A3")
    assert a3.bbox[0] == a2.bbox[0] and 15 <= a3.bbox[1] - a2.bbox[1] <= 30


@docker
def test_ids_are_stable_on_an_unchanged_screen(calc: Any) -> None:
    first, second = observe(calc, "axtree"), observe(calc, "axtree")

    def table(obs: Any) -> dict[str, tuple]:
        return {i: (e.role, e.name, e.bbox) for i, e in obs.elements.items()}

    assert table(first) == table(second) and len(first.elements) > 50
    assert first.axtree == second.axtree


@docker
def test_an_element_id_target_types_into_that_cell(calc: Any) -> None:
    obs = observe(calc, "axtree")
    c4 = element(obs, "table cell", "C4")
    result = calc.act(Action.from_dict({"type": "type", "target": c4.id, "text": "4242\n"}))
    assert result.ok, result.error
    point = target_point(c4, SCREEN)
    assert result.detail["resolved"]["target"] == {"id": c4.id, "x": point.x, "y": point.y, "role": "table cell",
                                                  "name": "C4"}

    def typed() -> Any:
        cell = [e for e in observe(calc, "axtree").elements.values() if e.name == "C4"]
        return cell and cell[0].attributes.get("value") == "4242"

    wait_for(typed, timeout=60, what="C4 to show 4242 in the tree")  # a bound: each poll reads the tree
    # the click went to C4 itself: its neighbours kept their content
    after = observe(calc, "axtree")
    assert element(after, "table cell", "B4").attributes.get("value") == "21"
    assert "value" not in element(after, "table cell", "D4").attributes


@docker
def test_an_unknown_id_is_a_failed_action_naming_it(calc: Any) -> None:
    obs = observe(calc, "axtree")
    result = calc.act(Action.from_dict({"type": "click", "target": "e99999"}))
    assert not result.ok
    assert "'e99999'" in result.error and f"e1..e{len(obs.elements)}" in result.error
    # a screenshot-only observation lists no elements: ids from before it no longer resolve
    observe(calc, "screenshot")
    stale = calc.act(Action.from_dict({"type": "click", "target": "e1"}))
    assert not stale.ok and "observe with axtree or som" in stale.error


@docker
def test_som_marks_the_screenshot(calc: Any) -> None:
    from PIL import Image, ImageChops

    obs = observe(calc, "screenshot", "som")
    assert obs.som and obs.screenshot and obs.axtree is None and obs.elements
    shot, som = Image.open(io.BytesIO(obs.screenshot)).convert("RGB"), Image.open(io.BytesIO(obs.som)).convert("RGB")
    assert som.size == shot.size == SCREEN
    assert ImageChops.difference(shot, som).getbbox() is not None
    assert obs.extra["timings_ms"]["som_ms"] > 0


@docker
def test_a_window_without_accessibility_is_named(calc: Any) -> None:
    """xterm speaks no AT-SPI: the tree says which window it cannot describe (last: the xterm stays on top)."""
    calc.box.client.request("spawn", argv=["xterm", "-T", "no-a11y-term", "-geometry", "40x5+700+500"])
    calc.box.client.request("wait_window", pattern="^no-a11y-term$", timeout=30)
    deadline = time.monotonic() + 10
    while True:
        obs = observe(calc, "axtree")
        if "no-a11y-term" in obs.extra["axtree"].get("windows_without_tree", []) or time.monotonic() > deadline:
            break
    assert obs.extra["axtree"]["windows_without_tree"] == ["no-a11y-term"]
    assert 'windows without an accessibility tree, see the screenshot: "no-a11y-term"' in obs.axtree


# --- the text and the ids, on made-up nodes ---------------------------------------------------------------------

def _node(role: str, name: str, depth: int, box: list[int] | None, **more: Any) -> dict[str, Any]:
    return {"role": role, "name": name, "depth": depth, "box": box, "states": more.pop("states", []), **more}


def test_ids_in_walk_order_and_unnamed_containers_left_out() -> None:
    tree = build_tree([
        _node("application", "app", 0, None),
        _node("frame", "Main", 1, [0, 0, 1280, 800], states=["active"]),
        _node("panel", "", 2, [0, 0, 1280, 800]),
        _node("push button", "OK", 3, [10, 10, 50, 20], states=["focusable", "focused"]),
        _node("text", "", 3, [10, 40, 200, 20], states=["editable", "focusable"], text="hello"),
        _node("label", "", 3, [10, 70, 200, 20], text="Status: ready"),
        _node("push button", "Off screen", 3, [1300, 10, 50, 20]),
        _node("password text", "Password", 3, [10, 100, 200, 20], states=["editable"]),
    ], SCREEN)
    assert tree.text.splitlines() == [
        'application "app"',
        '  frame "Main" [active]',
        '    [e1] push button "OK" [focused]',
        '    [e2] text "" [value="hello", editable]',
        '    label "Status: ready"',
        '    push button "Off screen"',
        '    [e3] password text "Password" [editable]',
    ]
    assert [(e.id, e.name) for e in tree.elements.values()] == [("e1", "OK"), ("e2", ""), ("e3", "Password")]
    assert target_point(tree.elements["e1"], SCREEN).x == 35 and target_point(tree.elements["e1"], SCREEN).y == 20


def test_an_open_menu_hides_the_elements_under_it() -> None:
    tree = build_tree([
        _node("menu bar", "", 1, [0, 0, 400, 20]),
        _node("menu", "File", 2, [0, 0, 40, 20]),
        _node("menu item", "Open", 3, [0, 20, 120, 20]),
        _node("menu item", "Save", 3, [0, 40, 120, 20]),
        _node("table cell", "A1", 1, [0, 40, 80, 20]),  # under "Save": unreachable while the menu is open
        _node("table cell", "B1", 1, [200, 40, 80, 20]),
    ], SCREEN)
    assert [e.name for e in tree.elements.values()] == ["File", "Open", "Save", "B1"]


def test_target_point_is_the_centre_of_the_part_on_the_screen() -> None:
    tree = build_tree([_node("table cell", "P1", 1, [1200, 780, 200, 60])], SCREEN)
    point = target_point(tree.elements["e1"], SCREEN)
    assert (point.x, point.y) == (1240, 790)
