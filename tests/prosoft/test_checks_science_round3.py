"""The evaluators of the third group of natural-science tasks (tasks/science_round3.json) without docker: the
QGIS tasks' layers judged by ``qgis_more``'s ``gis_layer``, the ImageJ tasks' pictures by
``checks/science_round3.py``'s ``imagej_filtered``. The artifact each demonstration makes passes every milestone,
an equivalent one passes too, and each near miss (the right operation with a wrong parameter, the file saved
elsewhere, the start file unchanged, a file of the wrong type under the expected name) fails the milestones it
should, never with an evaluator error. Artifacts are built the way the test of the second group builds them
(GeoJSON with json, GeoPackages with sqlite3, pictures with Pillow and numpy)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pytest
from PIL import Image

from suites.prosoft.checks import science_round3
from suites.prosoft.templates import KINDS, TEMPLATES

from .evaluation import failed, milestones
from .test_checks_science_more import all_fail, box, buffered_ring, cells, feature, geojson, gpkg, parcels, \
    png_named, rectangle, save, says

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures" / "prosoft"


def load(group: str) -> dict[str, dict[str, Any]]:
    path = ROOT / "suites" / "prosoft" / "tasks" / f"{group}.json"
    return {t["id"]: t for t in json.loads(path.read_text())["tasks"]}


TASKS = load("science_round3")
EARLIER = {**load("engineering"), **load("qgis_more"), **load("imaging"), **load("imagej_more")}


def run(task_id: str, artifacts: Mapping[str, Path]) -> dict[str, str | None]:
    task = TASKS[task_id]
    return milestones(task["template"], dict(task["ground_truth"]), artifacts)


# --- the tasks as a whole --------------------------------------------------------------------------------------

def test_levels_apps_kinds_start_files_and_demonstrations():
    for app in ("qgis", "imagej"):
        levels = [t["level"] for t in TASKS.values() if t["apps"] == [app]]
        assert levels.count("L1") == 4 and levels.count("L2") == 3, (app, levels)
    for task in TASKS.values():
        assert task["template"] in TEMPLATES and task["template"] in KINDS, task["id"]
        assert task["apps"] in (["qgis"], ["imagej"]) and task["level"] in ("L1", "L2"), task["id"]
        assert task["demonstration"]["actions"] and task["artifacts"] and task["knowledge"], task["id"]
        assert all((ROOT / f["src"]).is_file() for f in task["start_files"]), task["id"]
        assert task["id"] not in EARLIER, task["id"]


def test_no_task_repeats_start_files_and_result_and_each_l1_is_a_new_function():
    seen: dict[str, str] = {}
    for task in [*EARLIER.values(), *TASKS.values()]:
        key = json.dumps([sorted(f["src"] for f in task.get("start_files", [])), task["ground_truth"]], sort_keys=True)
        assert key not in seen, f"{task['id']} repeats {seen.get(key)}"
        seen[key] = task["id"]
    earlier_ops = {op[0] for t in EARLIER.values() if t["apps"] == ["imagej"] for op in t["ground_truth"].get("ops", [])}
    for task in TASKS.values():
        if task["apps"] == ["imagej"] and task["level"] == "L1":
            assert len(task["ground_truth"]["ops"]) == 1 and task["ground_truth"]["ops"][0][0] not in earlier_ops
    algorithms = [a["text"].split('"')[1] for t in TASKS.values() if t["level"] == "L1" and t["apps"] == ["qgis"]
                  for a in t["demonstration"]["actions"] if a["type"] == "type" and "processing.run(" in a["text"]]
    earlier_text = json.dumps([t["demonstration"] for t in EARLIER.values() if "qgis" in t["apps"]])
    assert len(algorithms) >= 4 and not [a for a in algorithms if a in earlier_text], algorithms


# --- QGIS layers -----------------------------------------------------------------------------------------------

NEAR_SITE = [1, 2, 4, 5, 6, 7, 8]
WELLS = [(1, "W-North", 500110.0, 5000240.0), (2, "W-East", 500300.0, 5000050.0),
         (3, "W-Centre", 500170.0, 5000090.0), (4, "W-West", 500030.0, 5000020.0),
         (5, "W-Park", 500210.0, 5000160.0)]


def some_parcels(ids: list[int]) -> list[dict[str, Any]]:
    return [f for f in parcels() if f["properties"]["id"] in ids]


def test_select_by_location_keeps_the_parcels_touching_the_site(tmp_path):
    good = geojson(tmp_path / "parcels_at_site.geojson", some_parcels(NEAR_SITE))
    assert not failed(run("qgis-select-by-location", {"layer": good}))
    within = geojson(tmp_path / "within.geojson", some_parcels([5]))  # 'are within' instead of 'intersect'
    assert set(failed(run("qgis-select-by-location", {"layer": within}))) == {
        "layer has 7 features", "layer holds the right features", "layer polygon areas"}
    everything = geojson(tmp_path / "all.geojson", parcels())  # the selection not applied to the export
    assert "layer holds the right features" in failed(run("qgis-select-by-location", {"layer": everything}))
    x0, y0, x1, y1 = 500050, 5000030, 500200, 5000210
    clipped = []
    for f in some_parcels(NEAR_SITE):
        a, b, c, d = rectangle(f["properties"]["id"])
        clipped.append(feature(f["properties"], {"type": "Polygon", "coordinates": [
            box(max(a, x0), max(b, y0), min(c, x1), min(d, y1))]}))
    result = run("qgis-select-by-location", {"layer": geojson(tmp_path / "clip.geojson", clipped)})
    assert failed(result) == ["layer polygon areas"], result  # clipped, not whole
    as_gpkg = gpkg(tmp_path / "at_site.geojson", some_parcels(NEAR_SITE))
    assert failed(run("qgis-select-by-location", {"layer": as_gpkg})) == ["layer is a GeoJSON file"]
    assert all_fail(run("qgis-select-by-location", {}), "not produced")


def hull_feature(points: list[tuple[float, float]]) -> dict[str, Any]:
    """One hull as Minimum Bounding Geometry writes it (with its id, area and perimeter fields)."""
    return feature({"id": 0, "area": 79500.0, "perimeter": 1080.0},
                   {"type": "Polygon", "coordinates": [[list(p) for p in points + points[:1]]]})


HULL = [(500000, 5000000), (500340, 5000000), (500340, 5000100), (500240, 5000230), (500150, 5000270),
        (500000, 5000270)]


def test_convex_hull_is_one_polygon_of_the_hulls_area(tmp_path):
    good = gpkg(tmp_path / "parcels_hull.gpkg", [hull_feature(HULL)])
    assert not failed(run("qgis-convex-hull", {"layer": good}))
    reversed_ring = gpkg(tmp_path / "cw.gpkg", [hull_feature(HULL[::-1])])  # equivalent: the other winding
    assert not failed(run("qgis-convex-hull", {"layer": reversed_ring}))
    bbox = gpkg(tmp_path / "bbox.gpkg", [feature({"id": 0}, {"type": "Polygon", "coordinates": [
        box(500000, 5000000, 500340, 5000270)]})])  # the bounding box, not the hull
    assert failed(run("qgis-convex-hull", {"layer": bbox})) == ["layer total area"]
    per_parcel = gpkg(tmp_path / "each.gpkg", parcels())  # Convex Hull per feature
    assert set(failed(run("qgis-convex-hull", {"layer": per_parcel}))) == {"layer has 1 features", "layer total area"}
    as_json = geojson(tmp_path / "hull.gpkg", [hull_feature(HULL)])
    assert failed(run("qgis-convex-hull", {"layer": as_json})) == ["layer is a GeoPackage file"]
    assert all_fail(run("qgis-convex-hull", {"layer": png_named(tmp_path / "p.gpkg")}), "a PNG image")


def wells(swap: bool = False, shift: float = 0.0) -> list[dict[str, Any]]:
    return [feature({"id": i, "name": n, "x": x, "y": y},
                    {"type": "Point", "coordinates": [y, x] if swap else [x + shift, y]}) for i, n, x, y in WELLS]


def test_points_from_table_at_the_wells_coordinates(tmp_path):
    good = gpkg(tmp_path / "wells.gpkg", wells())
    assert not failed(run("qgis-points-from-table", {"layer": good}))
    swapped = gpkg(tmp_path / "swap.gpkg", wells(swap=True))  # X and Y fields swapped
    assert failed(run("qgis-points-from-table", {"layer": swapped})) == ["layer points"]
    off = gpkg(tmp_path / "off.gpkg", wells(shift=1))
    assert failed(run("qgis-points-from-table", {"layer": off})) == ["layer points"]
    as_json = geojson(tmp_path / "w.gpkg", wells())
    assert failed(run("qgis-points-from-table", {"layer": as_json})) == ["layer is a GeoPackage file"]
    assert all_fail(run("qgis-points-from-table", {}), "not produced")


def merged(with_site: bool = True) -> list[dict[str, Any]]:
    out = [feature({**f["properties"], "layer": "parcels", "path": "/root/work/parcels.geojson"}, f["geometry"])
           for f in parcels()]
    if with_site:
        out.append(feature({"id": None, "name": "Site", "landuse": None, "layer": "site",
                            "path": "/root/work/site.geojson"},
                           {"type": "Polygon", "coordinates": [box(500050, 5000030, 500200, 5000210)]}))
    return out


def test_merge_holds_the_parcels_and_the_site(tmp_path):
    good = geojson(tmp_path / "merged.geojson", merged())
    assert not failed(run("qgis-merge-layers", {"layer": good}))
    parcels_only = geojson(tmp_path / "p.geojson", merged(with_site=False))
    assert set(failed(run("qgis-merge-layers", {"layer": parcels_only}))) == {"layer has 9 features",
                                                                               "layer total area"}
    appended = geojson(tmp_path / "a.geojson", [*parcels(), feature({"name": "Site"}, merged()[-1]["geometry"])])
    assert failed(run("qgis-merge-layers", {"layer": appended})) == ["layer fields name, layer"]  # not merged
    as_gpkg = gpkg(tmp_path / "m.geojson", merged())
    assert failed(run("qgis-merge-layers", {"layer": as_gpkg})) == ["layer is a GeoJSON file"]


def disk(x: float, y: float, d: float, segments: int = 20) -> list[list[float]]:
    ring = [[x + d * math.cos(2 * math.pi * k / segments), y + d * math.sin(2 * math.pi * k / segments)]
            for k in range(segments)]
    return ring + ring[:1]


def test_wells_buffer_zones(tmp_path):
    zones = [feature({"id": i, "name": n}, {"type": "Polygon", "coordinates": [disk(x, y, 30)]}) for i, n, x, y in WELLS]
    assert not failed(run("qgis-wells-buffer", {"layer": gpkg(tmp_path / "wells_buffer30.gpkg", zones)}))
    multi = [feature({"id": i}, {"type": "MultiPolygon", "coordinates": [[disk(x, y, 30)]]}) for i, _, x, y in WELLS]
    assert not failed(run("qgis-wells-buffer", {"layer": gpkg(tmp_path / "multi.gpkg", multi)}))  # equivalent
    small = [feature({"id": i}, {"type": "Polygon", "coordinates": [disk(x, y, 10)]}) for i, _, x, y in WELLS]
    assert failed(run("qgis-wells-buffer", {"layer": gpkg(tmp_path / "b10.gpkg", small)})) == ["layer polygon areas"]
    points = gpkg(tmp_path / "points.gpkg", wells())  # the points layer, not buffered
    assert set(failed(run("qgis-wells-buffer", {"layer": points}))) == {"layer Polygon geometries",
                                                                         "layer polygon areas"}


def test_site_parcels_buffer(tmp_path):
    def buffered(ids: list[int], d: float) -> list[dict[str, Any]]:
        return [feature(f["properties"], {"type": "Polygon", "coordinates": [buffered_ring(f["properties"]["id"], d)]})
                for f in some_parcels(ids)]

    good = geojson(tmp_path / "site_parcels_buffer10.geojson", buffered(NEAR_SITE, 10))
    assert not failed(run("qgis-site-parcels-buffer", {"layer": good}))
    every = geojson(tmp_path / "every.geojson", buffered(list(range(1, 9)), 10))  # 'selected only' not ticked
    assert set(failed(run("qgis-site-parcels-buffer", {"layer": every}))) == {"layer has 7 features",
                                                                               "layer holds the right features"}
    far = geojson(tmp_path / "b25.geojson", buffered(NEAR_SITE, 25))
    assert failed(run("qgis-site-parcels-buffer", {"layer": far})) == ["layer polygon areas"]
    unbuffered = geojson(tmp_path / "sel.geojson", some_parcels(NEAR_SITE))
    assert failed(run("qgis-site-parcels-buffer", {"layer": unbuffered})) == ["layer polygon areas"]


def test_wells_in_wgs84(tmp_path):
    # near enough for the bounds: 15° E is the zone's central meridian, about 78.7 km per degree of longitude here
    degrees = [feature({"id": i, "name": n}, {"type": "Point", "coordinates": [15.0 + (x - 500000) / 78_700,
                                                                             45.1550 + (y - 5000000) / 111_100]})
               for i, n, x, y in WELLS]
    assert not failed(run("qgis-wells-wgs84", {"layer": geojson(tmp_path / "wells_wgs84.geojson", degrees)}))
    metres = geojson(tmp_path / "utm.geojson", wells())  # not reprojected
    assert failed(run("qgis-wells-wgs84", {"layer": metres})) == ["layer coordinates within [14.99, 45.15, 15.01, 45.16]"]
    as_gpkg = gpkg(tmp_path / "w.geojson", wells())
    assert "layer is a GeoJSON file" in failed(run("qgis-wells-wgs84", {"layer": as_gpkg}))


# --- ImageJ pictures -------------------------------------------------------------------------------------------

def made(task_id: str, path: Path, ops: list[list[Any]] | None = None) -> Path:
    """The picture the task's operations make (or ``ops``'), saved as ``path``."""
    truth = TASKS[task_id]["ground_truth"]
    return save(science_round3.filtered(truth["source"], ops if ops is not None else truth["ops"]), path)


IJ_L1 = {"imagej-smooth": ("png", [["sharpen"]]), "imagej-sharpen": ("tif", [["smooth"]]),
         "imagej-maximum": ("png", [["maximum", 1]]), "imagej-scale-half": ("png", [["crop", 0, 0, 128, 128]])}


@pytest.mark.parametrize("task_id", sorted(IJ_L1))
def test_imagej_l1_passes_and_another_filter_or_parameter_fails(task_id, tmp_path):
    ext, other = IJ_L1[task_id]
    label = next(k for k in run(task_id, {"image": made(task_id, tmp_path / f"good.{ext}")}) if " shows " in k)
    assert not failed(run(task_id, {"image": made(task_id, tmp_path / f"good.{ext}")}))
    assert failed(run(task_id, {"image": made(task_id, tmp_path / f"other.{ext}", other)})) == [label]
    unchanged = save(cells(), tmp_path / f"start.{ext}")  # saved without running the command
    assert label in failed(run(task_id, {"image": unchanged}))
    wrong_type = made(task_id, tmp_path / f"x.{'tif' if ext == 'png' else 'png'}")
    result = run(task_id, {"image": wrong_type})
    assert failed(result) == [next(k for k in result if k.endswith(" file"))], result
    text = tmp_path / f"t.{ext}"
    text.write_text("not a picture")
    assert all_fail(run(task_id, {"image": text}), "is not a picture")
    assert all_fail(run(task_id, {}), "not produced")


def test_smooth_and_sharpen_are_imagejs_3x3_filters():
    a = np.zeros((5, 5), dtype=np.uint8)
    a[2, 2] = 90
    image = Image.fromarray(a, "L")
    assert np.asarray(science_round3.smooth(image))[1:4, 1:4].tolist() == [[10] * 3] * 3  # (90 + 4) // 9
    sharp = np.asarray(science_round3.sharpen(image))
    assert sharp[2, 2] == 255 and sharp[1, 1] == 0  # 12 x 90 / 4 clipped; the neighbours go negative, clipped
    assert np.asarray(science_round3.rank(image, 1, "maximum")).sum() == 9 * 90  # radius 1: ImageJ's 3x3
    assert np.asarray(science_round3.rank(image, 2, "maximum")).sum() == 21 * 90  # radius 2: 5x5 less corners
    assert np.asarray(science_round3.shrink(image, 5)).tolist() == [[4]]  # (90 + 12) // 25


def test_scale_half_averages_and_a_nearest_neighbour_shrink_fails(tmp_path):
    a = np.asarray(cells(), dtype=np.uint8)
    nearest = save(Image.fromarray(a[::2, ::2].copy(), "L"), tmp_path / "nearest.png")
    assert failed(run("imagej-scale-half", {"image": nearest})) == ["image shows imaging/cells.tif after shrink 2"]
    bicubic = save(cells().resize((128, 128), Image.Resampling.BICUBIC), tmp_path / "bicubic.png")
    assert not failed(run("imagej-scale-half", {"image": bicubic}))  # equivalent: another smooth downscale
    full = save(cells(), tmp_path / "full.png")  # not scaled
    assert set(failed(run("imagej-scale-half", {"image": full}))) == {"image is 128x128 px",
                                                                      "image shows imaging/cells.tif after shrink 2"}


IJ_L2 = {"imagej-stack-max-sharpen": ("png", [["zproject", "max"], ["smooth"]]),
         "imagej-16bit-smooth-max": ("tif", [["ij8bit"], ["smooth"], ["maximum", 2]]),
         "imagej-flip-min-subtract": ("png", [["flip_h"], ["minimum", 1], ["subtract", 10]])}


@pytest.mark.parametrize("task_id", sorted(IJ_L2))
def test_imagej_l2_chain_passes_and_a_changed_step_or_a_missing_one_fails(task_id, tmp_path):
    ext, other = IJ_L2[task_id]
    good = made(task_id, tmp_path / f"good.{ext}")
    result = run(task_id, {"image": good})
    assert not failed(result), result
    label = next(k for k in result if " shows " in k)
    assert failed(run(task_id, {"image": made(task_id, tmp_path / f"other.{ext}", other)})) == [label]
    short = TASKS[task_id]["ground_truth"]["ops"][:-1]  # the last step left out
    assert failed(run(task_id, {"image": made(task_id, tmp_path / f"short.{ext}", short)})) == [label]
    assert all_fail(run(task_id, {}), "not produced")


def test_imagej_8bit_rounds_as_imagej_does():
    a = np.array([[1000, 1001, 1255]], dtype=np.uint16)
    got = np.asarray(science_round3.ij_8bit(Image.fromarray(a))).tolist()
    assert got == [[0, 1, 255]]  # 256 / 256 per value, rounded: (1 * 1.0 + 0.5) -> 1
    with pytest.raises(ValueError, match="zproject must come first"):
        science_round3.filtered("imaging/cells.tif", [["smooth"], ["zproject", "max"]])


def test_a_ground_truth_without_source_is_a_task_error():
    with pytest.raises(ValueError, match="names no source"):
        milestones("imagej_filtered", {"artifact": "image", "format": "PNG"}, {})


def test_says_names_the_artifact(tmp_path):
    assert "image" in says(run("imagej-smooth", {}))
