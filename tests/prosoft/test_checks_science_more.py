"""The evaluators of the second group of natural-science tasks (checks/qgis_more.py: gis_layer, qgs_layer, map_image;
checks/imagej_more.py: imagej_processed, imagej_mask, imagej_calibration) without docker, on the ground truths of
the generated tasks (tasks/qgis_more.json, tasks/imagej_more.json): the artifact the demonstration makes passes
every milestone, an equivalent one passes too, and each near miss (the right operation with a wrong parameter,
the file saved elsewhere, an unsaved change, a file of the wrong type under the expected name) fails the
milestones it should, never with an evaluator error.

Artifacts are built here the way the programs write them: GeoJSON with json, GeoPackages with sqlite3 (the
geometry as a 'GP' header and WKB), .qgz projects with zipfile, world files as text, pictures and TIFF tags with
Pillow and numpy.
"""

from __future__ import annotations

import json
import math
import sqlite3
import struct
import zipfile
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import pytest
from PIL import Image, ImageOps, TiffImagePlugin

from suites.prosoft.checks import imagej_more, qgis_more
from suites.prosoft.templates import KINDS, TEMPLATES

from .evaluation import failed, milestones, truth_of

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures" / "prosoft"
PNG_BYTES = b"\x89PNG\r\n\x1a\n" + b"\x00" * 40


def tasks(group: str) -> dict[str, dict[str, Any]]:
    return {t["id"]: t for t in json.loads((ROOT / "suites" / "prosoft" / "tasks" / f"{group}.json").read_text())["tasks"]}


QGIS_TASKS, IJ_TASKS = tasks("qgis_more"), tasks("imagej_more")


def run(task_id: str, artifacts: Mapping[str, Path], kind: str | None = None) -> dict[str, str | None]:
    group = QGIS_TASKS if task_id in QGIS_TASKS else IJ_TASKS
    kind = kind or group[task_id]["template"]
    return milestones(kind, truth_of(group, task_id, kind), artifacts)


def png_named(path: Path) -> Path:
    path.write_bytes(PNG_BYTES)
    return path


def says(result: Mapping[str, str | None]) -> str:
    return " | ".join(m for m in result.values() if m)


def all_fail(result: Mapping[str, str | None], says: str) -> bool:
    return bool(result) and len(failed(result)) == len(result) and all(says in (m or "") for m in result.values())


# --- the tasks as a whole --------------------------------------------------------------------------------------

@pytest.mark.parametrize("group", ["qgis_more", "imagej_more"])
def test_every_task_has_a_known_kind_a_level_an_app_start_files_and_a_demonstration(group):
    found = tasks(group)
    app = group.split("_")[0]
    levels = [t["level"] for t in found.values()]
    assert levels.count("L1") >= 7 and levels.count("L2") >= 4, levels
    for task in found.values():
        assert task["template"] in TEMPLATES and task["template"] in KINDS, task["id"]
        assert task["apps"] == [app] and task["level"] in ("L1", "L2"), task["id"]
        assert task["demonstration"]["actions"], task["id"]
        assert all((ROOT / f["src"]).is_file() for f in task["start_files"]), task["id"]
        assert task["artifacts"], task["id"]


def test_no_two_tasks_share_start_files_and_expected_result_and_each_l1_is_another_function():
    seen: dict[str, str] = {}
    for task in [*QGIS_TASKS.values(), *IJ_TASKS.values()]:
        key = json.dumps([sorted(f["src"] for f in task["start_files"]), task["ground_truth"]], sort_keys=True)
        assert key not in seen, f"{task['id']} repeats {seen.get(key)}"
        seen[key] = task["id"]
    for group in (QGIS_TASKS, IJ_TASKS):
        l1 = [t for t in group.values() if t["level"] == "L1"]
        ops = [json.dumps([t["template"], t["ground_truth"].get("ops"), sorted(t["ground_truth"])]) for t in l1]
        assert len(set(ops)) == len(ops), "two L1 tasks check the same operation"


# --- GeoJSON and GeoPackage layers ---------------------------------------------------------------------------

def rectangle(pid: int) -> tuple[float, float, float, float]:
    from suites.prosoft.make.qgis_more import SCIENCE

    return SCIENCE.rectangle(pid)


def buffered_ring(pid: int, d: float, segments: int = 5) -> list[list[float]]:
    """The outer ring QGIS draws around a rectangle buffered by ``d``: four sides and round corners of
    ``segments`` chords each."""
    x0, y0, x1, y1 = rectangle(pid)
    ring = []
    for (cx, cy), start in (((x1, y0), -90), ((x1, y1), 0), ((x0, y1), 90), ((x0, y0), 180)):
        for k in range(segments + 1):
            a = math.radians(start + 90 * k / segments)
            ring.append([cx + d * math.cos(a), cy + d * math.sin(a)])
    return ring + [ring[0]]


def box(x0: float, y0: float, x1: float, y1: float) -> list[list[float]]:
    return [[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]


def feature(props: Mapping[str, Any], geometry: Mapping[str, Any]) -> dict[str, Any]:
    return {"type": "Feature", "properties": dict(props), "geometry": dict(geometry)}


def parcels() -> list[dict[str, Any]]:
    return json.loads((FIX / "engineering" / "parcels.geojson").read_text())["features"]


def geojson(path: Path, features: Sequence[Mapping[str, Any]]) -> Path:
    path.write_text(json.dumps({"type": "FeatureCollection", "name": path.stem, "features": list(features)}))
    return path


def wkb(geometry: Mapping[str, Any]) -> bytes:
    kind, coords = geometry["type"], geometry["coordinates"]
    codes = {"Point": 1, "Polygon": 3, "MultiPolygon": 6}
    out = struct.pack("<BI", 1, codes[kind])
    if kind == "Point":
        return out + struct.pack("<dd", *coords)
    if kind == "Polygon":
        out += struct.pack("<I", len(coords))
        for ring in coords:
            out += struct.pack("<I", len(ring)) + b"".join(struct.pack("<dd", *p) for p in ring)
        return out
    return out + struct.pack("<I", len(coords)) + b"".join(wkb({"type": "Polygon", "coordinates": p}) for p in coords)


def gpkg(path: Path, features: Sequence[Mapping[str, Any]], table: str = "layer") -> Path:
    """A GeoPackage as GDAL writes it: gpkg_contents, gpkg_geometry_columns, the table with an fid and a 'geom'
    column of GeoPackage geometry blobs (header with an xy envelope, then little-endian WKB)."""
    con = sqlite3.connect(path)
    con.execute("PRAGMA application_id = 1196444487")
    con.execute("CREATE TABLE gpkg_contents (table_name TEXT, data_type TEXT, identifier TEXT, srs_id INTEGER)")
    con.execute("CREATE TABLE gpkg_geometry_columns (table_name TEXT, column_name TEXT, geometry_type_name TEXT, "
                "srs_id INTEGER, z INTEGER, m INTEGER)")
    con.execute("INSERT INTO gpkg_contents VALUES (?, 'features', ?, 32633)", (table, table))
    con.execute("INSERT INTO gpkg_geometry_columns VALUES (?, 'geom', 'GEOMETRY', 32633, 0, 0)", (table,))
    fields = sorted({k for f in features for k in f["properties"]})
    con.execute(f'CREATE TABLE "{table}" (fid INTEGER PRIMARY KEY, geom BLOB, '
                + ", ".join(f'"{c}"' for c in fields) + ")")
    for f in features:
        points = list(qgis_more._points(f["geometry"]))
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        header = b"GP" + bytes([0, 0b00000011]) + struct.pack("<i", 32633) + struct.pack(
            "<dddd", min(xs), max(xs), min(ys), max(ys))
        con.execute(f'INSERT INTO "{table}" (geom, {", ".join(json.dumps(c) for c in fields)}) VALUES (?, '
                    + ", ".join("?" for _ in fields) + ")",
                    [header + wkb(f["geometry"]), *[f["properties"].get(c) for c in fields]])
    con.commit()
    con.close()
    return path


def buffered(d: float) -> list[dict[str, Any]]:
    return [feature(f["properties"], {"type": "Polygon", "coordinates": [buffered_ring(f["properties"]["id"], d)]})
            for f in parcels()]


def test_buffer_passes_and_another_distance_the_start_file_and_wrong_types_fail(tmp_path):
    good = geojson(tmp_path / "parcels_buffer25.geojson", buffered(25))
    assert not failed(run("qgis-buffer", {"layer": good}))
    eight_segments = [feature(f["properties"], {"type": "Polygon", "coordinates": [
        buffered_ring(f["properties"]["id"], 25, 8)]}) for f in parcels()]  # equivalent: smoother corners
    assert not failed(run("qgis-buffer", {"layer": geojson(tmp_path / "smooth.geojson", eight_segments)}))
    result = run("qgis-buffer", {"layer": geojson(tmp_path / "b10.geojson", buffered(10))})  # the default distance
    assert failed(result) == ["layer polygon areas"], result
    unsaved = geojson(tmp_path / "same.geojson", parcels())  # the parcels themselves, not buffered
    assert failed(run("qgis-buffer", {"layer": unsaved})) == ["layer polygon areas"]
    result = run("qgis-buffer", {"layer": png_named(tmp_path / "png.geojson")})
    assert all_fail(result, "a PNG image"), result
    as_gpkg = gpkg(tmp_path / "b.geojson", buffered(25))  # a GeoPackage under the .geojson name
    assert failed(run("qgis-buffer", {"layer": as_gpkg})) == ["layer is a GeoJSON file"]
    assert all_fail(run("qgis-buffer", {}), "not produced")


def centroids(shift: float = 0.0) -> list[dict[str, Any]]:
    out = []
    for f in parcels():
        x0, y0, x1, y1 = rectangle(f["properties"]["id"])
        out.append(feature(f["properties"], {"type": "Point", "coordinates": [(x0 + x1) / 2 + shift, (y0 + y1) / 2]}))
    return out


def test_centroids_geopackage_is_read_and_wrong_points_or_format_fail(tmp_path):
    good = gpkg(tmp_path / "centroids.gpkg", centroids())
    assert not failed(run("qgis-centroids", {"layer": good}))
    result = run("qgis-centroids", {"layer": gpkg(tmp_path / "off.gpkg", centroids(shift=5))})
    assert failed(result) == ["layer points"], result
    corners = [feature(f["properties"], {"type": "Point", "coordinates": f["geometry"]["coordinates"][0][0]})
               for f in parcels()]  # the first vertex, not the centre
    assert failed(run("qgis-centroids", {"layer": gpkg(tmp_path / "c.gpkg", corners)})) == ["layer points"]
    as_json = geojson(tmp_path / "centroids_json.gpkg", centroids())  # saved as GeoJSON under the .gpkg name
    result = run("qgis-centroids", {"layer": as_json})
    assert failed(result) == ["layer is a GeoPackage file"] and "text starting" in says(result), result
    polygons = gpkg(tmp_path / "poly.gpkg", parcels())  # the polygons, not their centroids
    assert set(failed(run("qgis-centroids", {"layer": polygons}))) == {"layer Point geometries", "layer points"}
    broken = tmp_path / "broken.gpkg"
    broken.write_bytes(qgis_more.SQLITE + b"\x00" * 200)  # a SQLite header, then nothing readable
    result = run("qgis-centroids", {"layer": broken})
    assert len(failed(result)) == len(result) - 1 and "could not be read as a GeoPackage" in says(result), result


def clipped(site: tuple[float, float, float, float]) -> list[dict[str, Any]]:
    out = []
    for f in parcels():
        x0, y0, x1, y1 = rectangle(f["properties"]["id"])
        a, b, c, d = max(x0, site[0]), max(y0, site[1]), min(x1, site[2]), min(y1, site[3])
        if c > a and d > b:
            out.append(feature(f["properties"], {"type": "Polygon", "coordinates": [box(a, b, c, d)]}))
    return out


def test_clip_passes_and_the_unclipped_layer_or_another_boundary_fails(tmp_path):
    from suites.prosoft.make.qgis_more import SCIENCE

    good = geojson(tmp_path / "parcels_site.geojson", clipped(SCIENCE.SITE))
    assert not failed(run("qgis-clip", {"layer": good}))
    whole = geojson(tmp_path / "whole.geojson", parcels())  # the overlay not applied
    assert set(failed(run("qgis-clip", {"layer": whole}))) == {"layer has 7 features", "layer holds the right features",
                                                               "layer polygon areas"}
    x0, y0, x1, y1 = SCIENCE.SITE
    smaller = geojson(tmp_path / "small.geojson", clipped((x0, y0 + 20, x1, y1)))  # a wrong boundary
    assert "layer polygon areas" in failed(run("qgis-clip", {"layer": smaller}))
    multi = [feature(f["properties"], {"type": "MultiPolygon", "coordinates": [f["geometry"]["coordinates"]]})
             for f in clipped(SCIENCE.SITE)]  # equivalent: QGIS's clip writes multipolygons
    assert not failed(run("qgis-clip", {"layer": geojson(tmp_path / "multi.geojson", multi)}))


def joined(owners: Mapping[str, str]) -> list[dict[str, Any]]:
    table = {str(pid): (owner, value) for pid, owner, value in
             __import__("suites.prosoft.make.qgis_more", fromlist=["SCIENCE"]).SCIENCE.OWNERS}
    out = []
    for f in parcels():
        pid = str(f["properties"]["id"])
        out.append(feature({**f["properties"], "owner": owners.get(pid, table[pid][0]), "assessed": table[pid][1]},
                           f["geometry"]))
    return out


def test_join_needs_the_owner_of_each_parcel(tmp_path):
    good = geojson(tmp_path / "parcels_owners.geojson", joined({}))
    assert not failed(run("qgis-join-owners", {"layer": good}))
    shifted = geojson(tmp_path / "shift.geojson", joined({"1": "City", "2": "Novak"}))  # joined on the wrong key
    assert failed(run("qgis-join-owners", {"layer": shifted})) == ["layer field owner values"]
    plain = geojson(tmp_path / "plain.geojson", parcels())  # not joined
    assert set(failed(run("qgis-join-owners", {"layer": plain}))) == {
        "layer fields id, name, landuse, owner, assessed", "layer field owner values"}


def dissolved(by: str) -> list[dict[str, Any]]:
    groups: dict[str, list[Any]] = {}
    for f in parcels():
        groups.setdefault(str(f["properties"][by]), []).append(f["geometry"]["coordinates"])
    return [feature({"landuse": k if by == "landuse" else "x", by: k}, {"type": "MultiPolygon", "coordinates": v})
            for k, v in groups.items()]


def test_dissolve_by_landuse_passes_and_by_another_field_fails(tmp_path):
    good = gpkg(tmp_path / "landuse.gpkg", dissolved("landuse"))
    assert not failed(run("qgis-dissolve", {"layer": good}))
    everything = [feature({"landuse": "all"}, {"type": "MultiPolygon",
                                               "coordinates": [f["geometry"]["coordinates"] for f in parcels()]})]
    result = run("qgis-dissolve", {"layer": gpkg(tmp_path / "all.gpkg", everything)})  # no dissolve field
    assert set(failed(result)) == {"layer has 3 features", "layer holds the right features", "layer polygon areas"}
    result = run("qgis-dissolve", {"layer": gpkg(tmp_path / "parcels.gpkg", parcels())})  # not dissolved
    assert "layer has 3 features" in failed(result)


def test_l2_layers(tmp_path):
    from suites.prosoft.make.qgis_more import CITY, PARKS, SCIENCE

    def buffer_union(d: float, ids: Sequence[int]) -> list[dict[str, Any]]:
        return [feature({"id": ids[0], "landuse": "park"},
                        {"type": "MultiPolygon", "coordinates": [[buffered_ring(i, d)] for i in ids]})]

    assert not failed(run("qgis-parks-buffer-dissolved", {"layer": gpkg(tmp_path / "z.gpkg", buffer_union(15, PARKS))}))
    result = run("qgis-parks-buffer-dissolved", {"layer": gpkg(tmp_path / "z10.gpkg", buffer_union(10, PARKS))})
    assert failed(result) == ["layer total area"]
    apart = [feature({"id": i}, {"type": "Polygon", "coordinates": [buffered_ring(i, 15)]}) for i in PARKS]
    result = run("qgis-parks-buffer-dissolved", {"layer": gpkg(tmp_path / "apart.gpkg", apart)})  # not dissolved
    assert "layer has 1 features" in failed(result)

    site = clipped(SCIENCE.SITE)
    groups: dict[str, list[Any]] = {}
    for f in site:
        groups.setdefault(f["properties"]["landuse"], []).append(f["geometry"]["coordinates"])
    good = [feature({"landuse": k}, {"type": "MultiPolygon", "coordinates": v}) for k, v in groups.items()]
    assert not failed(run("qgis-clip-dissolve", {"layer": geojson(tmp_path / "s.geojson", good)}))
    unclipped = geojson(tmp_path / "u.geojson", dissolved("landuse"))  # dissolved without the clip
    assert failed(run("qgis-clip-dissolve", {"layer": unclipped})) == ["layer polygon areas"]

    city = [f for f in joined({}) if f["properties"]["id"] in CITY]
    assert not failed(run("qgis-city-parcels", {"layer": geojson(tmp_path / "c.geojson", city)}))
    parks = [f for f in joined({}) if f["properties"]["id"] in PARKS]  # the parks, not the City's parcels
    assert set(failed(run("qgis-city-parcels", {"layer": geojson(tmp_path / "p.geojson", parks)}))) == {
        "layer holds the right features", "layer field owner values"}
    no_join = [f for f in parcels() if f["properties"]["id"] in CITY]
    assert set(failed(run("qgis-city-parcels", {"layer": geojson(tmp_path / "n.geojson", no_join)}))) == {
        "layer fields id, name, landuse, owner, assessed", "layer field owner values"}


# --- projects ----------------------------------------------------------------------------------------------------

QGS = """<!DOCTYPE qgis PUBLIC 'http://mrcc.com/qgis.dtd' 'SYSTEM'>
<qgis projectname="" version="3.22.16-Białowieża">
  <projectCrs><spatialrefsys><authid>EPSG:32633</authid></spatialrefsys></projectCrs>
  <projectlayers>
    <maplayer type="vector" geometry="Polygon">
      <id>parcels_1</id>
      <datasource>{source}</datasource>
      <layername>{name}</layername>
      <provider encoding="UTF-8">ogr</provider>
      {renderer}
    </maplayer>
  </projectlayers>
</qgis>
"""


def renderer(kind: str = "categorizedSymbol", attr: str = "landuse",
             values: Sequence[str] = ("commercial", "park", "residential")) -> str:
    categories = "".join(f'<category value="{v}" label="{v}" symbol="{i}" render="true"/>' for i, v in enumerate(values)
                         if kind == "categorizedSymbol")
    return f'<renderer-v2 type="{kind}" attr="{attr}"><categories>{categories}</categories></renderer-v2>'


def qgz(path: Path, subset: str = "", name: str = "parcels", style: str = "") -> Path:
    source = "./parcels.geojson|layername=parcels" + (f"|subset={subset}" if subset else "")
    xml = QGS.format(source=source.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"), name=name,
                     renderer=style or renderer("singleSymbol", ""))
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(path.stem + ".qgs", xml)
        z.writestr(path.stem + "_attachments.zip", b"")
    return path


def test_filter_is_judged_by_what_it_keeps(tmp_path):
    good = qgz(tmp_path / "residential.qgz", "\"landuse\" = 'residential'")
    assert not failed(run("qgis-filter-residential", {"project": good}))
    for equivalent in ("landuse IN ('residential')", "\"landuse\" LIKE 'resid%'", "\"id\" IN (1, 2, 6)"):
        assert not failed(run("qgis-filter-residential", {"project": qgz(tmp_path / "e.qgz", equivalent)})), equivalent
    result = run("qgis-filter-residential", {"project": qgz(tmp_path / "park.qgz", "\"landuse\" = 'park'")})
    assert failed(result) == ["project layer filter keeps 3 features"] and "keeps id ['3', '5', '8']" in says(result)
    result = run("qgis-filter-residential", {"project": qgz(tmp_path / "none.qgz")})  # filter set, project not saved
    assert "has no filter" in says(result)
    result = run("qgis-filter-residential", {"project": qgz(tmp_path / "bad.qgz", "landuse = = 'x'")})
    assert "not a valid expression" in says(result)
    not_project = tmp_path / "zip.qgz"
    with zipfile.ZipFile(not_project, "w") as z:
        z.writestr("readme.txt", "x")
    result = run("qgis-filter-residential", {"project": not_project})
    assert all_fail(result, "is not a QGIS project"), result
    assert all_fail(run("qgis-filter-residential", {}), "not produced")  # saved elsewhere


def test_categorized_style_needs_the_field_and_every_category(tmp_path):
    good = qgz(tmp_path / "landuse_style.qgz", style=renderer())
    assert not failed(run("qgis-categorized-style", {"project": good}))
    by_name = qgz(tmp_path / "name.qgz", style=renderer(attr="name", values=("A1", "A2")))
    assert set(failed(run("qgis-categorized-style", {"project": by_name}))) == {
        "project renderer categorizedSymbol on landuse", "project categories commercial, park, residential"}
    graduated = qgz(tmp_path / "grad.qgz", style=renderer("graduatedSymbol", "id", ()))
    assert "project renderer categorizedSymbol on landuse" in failed(run("qgis-categorized-style", {"project": graduated}))
    unsaved = qgz(tmp_path / "plain.qgz")  # the single-symbol style QGIS starts with
    assert len(failed(run("qgis-categorized-style", {"project": unsaved}))) == 2
    result = run("qgis-categorized-style", {"project": png_named(tmp_path / "p.qgz")})
    assert all_fail(result, "a PNG image"), result


def test_l2_project_needs_name_filter_and_style(tmp_path):
    good = qgz(tmp_path / "n.qgz", "\"landuse\" <> 'residential'", "Non-residential",
               renderer(values=("commercial", "park")))
    assert not failed(run("qgis-nonresidential-project", {"project": good}))
    unnamed = qgz(tmp_path / "u.qgz", "\"landuse\" != 'residential'", "parcels", renderer(values=("commercial", "park")))
    assert failed(run("qgis-nonresidential-project", {"project": unnamed})) == ["project layer named Non-residential"]
    wrong = qgz(tmp_path / "w.qgz", "\"landuse\" = 'residential'", "Non-residential", renderer())
    assert failed(run("qgis-nonresidential-project", {"project": wrong})) == ["project layer filter keeps 5 features"]


# --- map pictures ------------------------------------------------------------------------------------------------

def map_png(path: Path, size: tuple[int, int] = (800, 600), fmt: str = "PNG") -> Path:
    Image.new("RGB", size, (255, 255, 255)).save(path, fmt)
    return path


def world(path: Path, x0: float, y1: float, pixel: float) -> Path:
    path.write_text(f"{pixel}\n0\n0\n{-pixel}\n{x0 + pixel / 2}\n{y1 - pixel / 2}\n")
    return path


def test_map_image_must_show_the_parcels(tmp_path):
    image = map_png(tmp_path / "map.png")
    good = {"image": image, "world": world(tmp_path / "map.pgw", 499950, 5000330, 0.6)}  # 480 x 360 m
    assert not failed(run("qgis-map-image", good))
    elsewhere = {"image": image, "world": world(tmp_path / "e.pgw", 400000, 5100000, 0.6)}
    assert failed(run("qgis-map-image", elsewhere)) == ["image georeferenced over [500000, 5000000, 500340, 5000270]"]
    zoomed_out = {"image": image, "world": world(tmp_path / "z.pgw", 490000, 5010000, 25)}
    assert "zoomed out" in str(run("qgis-map-image", zoomed_out))
    result = run("qgis-map-image", {"image": image})  # no world file: georeference unticked
    assert failed(result) == ["image georeferenced over [500000, 5000000, 500340, 5000270]"] and "not produced" in says(result)
    jpeg = {"image": map_png(tmp_path / "j.png", fmt="JPEG"), "world": good["world"]}
    assert failed(run("qgis-map-image", jpeg)) == ["image is a PNG file"]
    bad_world = tmp_path / "bad.pgw"
    bad_world.write_text("1\n0\n0\n")
    assert "a world file has 6" in str(run("qgis-map-image", {"image": image, "world": bad_world}))
    result = run("qgis-map-image", {"image": (tmp_path / "t.png"), "world": good["world"]})
    assert all_fail(result, "not produced")


# --- ImageJ pictures -------------------------------------------------------------------------------------------

def cells() -> Image.Image:
    return Image.open(FIX / "imaging" / "cells.tif").convert("L")


def save(image: Image.Image, path: Path, fmt: str | None = None, **kw: Any) -> Path:
    image.save(path, fmt or {"png": "PNG", "tif": "TIFF"}[path.suffix[1:]], **kw)
    return path


def test_median_matches_imagej_and_another_radius_or_filter_fails(tmp_path):
    good = save(imagej_more.median(cells(), 2), tmp_path / "cells_median.tif")
    assert not failed(run("imagej-median", {"image": good}))
    r1 = save(imagej_more.median(cells(), 1), tmp_path / "r1.tif")
    assert failed(run("imagej-median", {"image": r1})) == ["image shows imaging/cells.tif after median 2"]
    from PIL import ImageFilter
    gauss = save(cells().filter(ImageFilter.GaussianBlur(1)), tmp_path / "g.tif")
    assert failed(run("imagej-median", {"image": gauss})) == ["image shows imaging/cells.tif after median 2"]
    as_png = save(imagej_more.median(cells(), 2), tmp_path / "m.png")  # PNG under the .tif name's task
    assert failed(run("imagej-median", {"image": as_png})) == ["image is a TIFF file"]
    result = run("imagej-median", {"image": (tmp_path / "x.tif")})
    assert all_fail(result, "not produced")
    text = tmp_path / "t.tif"
    text.write_text("not a picture")
    result = run("imagej-median", {"image": text})
    assert all_fail(result, "is not a picture"), result


def test_median_kernel_is_imagejs_circle():
    assert len(imagej_more.kernel_offsets(1)) == 9 and len(imagej_more.kernel_offsets(2)) == 21
    assert len(imagej_more.kernel_offsets(3)) == 37  # 7x7 less the corners' 12


def test_edges_rotation_subtract_and_unsaved(tmp_path):
    good = save(imagej_more.find_edges(cells()), tmp_path / "e.png")
    assert not failed(run("imagej-find-edges", {"image": good}))
    unsaved = save(cells(), tmp_path / "u.png")
    assert failed(run("imagej-find-edges", {"image": unsaved})) == ["image shows imaging/cells.tif after edges"]
    right = save(cells().rotate(-90, expand=True), tmp_path / "r.png")
    assert not failed(run("imagej-rotate-right", {"image": right}))
    left = save(cells().rotate(90, expand=True), tmp_path / "l.png")
    assert failed(run("imagej-rotate-right", {"image": left})) == ["image shows imaging/cells.tif after rotate 90"]
    minus = save(Image.fromarray(np.clip(np.asarray(cells(), int) - 25, 0, 255).astype(np.uint8)), tmp_path / "s.png")
    assert not failed(run("imagej-subtract", {"image": minus}))
    minus20 = save(Image.fromarray(np.clip(np.asarray(cells(), int) - 20, 0, 255).astype(np.uint8)), tmp_path / "s2.png")
    assert failed(run("imagej-subtract", {"image": minus20})) == ["image shows imaging/cells.tif after subtract 25"]
    rgb = save(Image.fromarray(np.clip(np.asarray(cells(), int) - 25, 0, 255).astype(np.uint8)).convert("RGB"),
               tmp_path / "rgb.png")  # the same values saved as RGB: equivalent
    assert not failed(run("imagej-subtract", {"image": rgb}))


def stack_frames() -> list[np.ndarray]:
    from PIL import ImageSequence

    with Image.open(FIX / "science_more" / "stack.tif") as image:
        return [np.asarray(page.convert("L"), dtype=int) for page in ImageSequence.Iterator(image)]


def test_z_projection(tmp_path):
    frames = stack_frames()
    assert len(frames) == 6
    good = save(Image.fromarray(np.max(frames, axis=0).astype(np.uint8)), tmp_path / "max.tif")
    assert not failed(run("imagej-z-project", {"image": good}))
    mean = save(Image.fromarray(np.rint(np.mean(frames, axis=0)).astype(np.uint8)), tmp_path / "mean.tif")
    assert failed(run("imagej-z-project", {"image": mean})) == ["image shows science_more/stack.tif after zproject max"]
    first = save(Image.fromarray(frames[0].astype(np.uint8)), tmp_path / "first.tif")  # the stack saved as is
    assert failed(run("imagej-z-project", {"image": first})) == ["image shows science_more/stack.tif after zproject max"]
    as_float = tmp_path / "f.tif"
    Image.fromarray(np.max(frames, axis=0).astype(np.float32), "F").save(as_float)  # a 32-bit result: same values
    assert not failed(run("imagej-z-project", {"image": as_float}))


def test_mask_either_polarity_passes_a_wrong_threshold_or_a_grey_picture_fails(tmp_path):
    a = np.asarray(cells(), dtype=int)
    white_cells = save(Image.fromarray(np.where(a > 100, 255, 0).astype(np.uint8)), tmp_path / "w.png")
    assert not failed(run("imagej-mask", {"image": white_cells}))
    black_cells = save(Image.fromarray(np.where(a > 100, 0, 255).astype(np.uint8)), tmp_path / "b.png")
    assert not failed(run("imagej-mask", {"image": black_cells}))  # ImageJ's inverted LUT
    low = save(Image.fromarray(np.where(a > 20, 255, 0).astype(np.uint8)), tmp_path / "low.png")  # in the noise
    assert failed(run("imagej-mask", {"image": low})) == ["image separates the objects of imaging/cells.tif"]
    high = save(Image.fromarray(np.where(a > 200, 255, 0).astype(np.uint8)), tmp_path / "high.png")  # loses cells
    assert failed(run("imagej-mask", {"image": high})) == ["image separates the objects of imaging/cells.tif"]
    grey = save(cells(), tmp_path / "g.png")  # not thresholded
    assert "image is a binary mask" in failed(run("imagej-mask", {"image": grey}))
    result = run("imagej-mask", {"image": save(Image.fromarray(np.where(a > 100, 255, 0).astype(np.uint8)),
                                               tmp_path / "m.tif")})
    assert failed(result) == ["image is a PNG file"]
    assert all_fail(run("imagej-mask", {}), "not produced")


def calibrated(path: Path, unit: str | None, pixels_per_unit: float | None, image: Image.Image | None = None) -> Path:
    info = TiffImagePlugin.ImageFileDirectory_v2()
    if unit is not None:
        info[270] = f"ImageJ=1.53t\nunit={unit}\n"
    if pixels_per_unit is not None:
        info[282] = pixels_per_unit
        info[283] = pixels_per_unit
    (image or cells()).save(path, "TIFF", tiffinfo=info)
    return path


def test_calibration_read_from_the_tiff(tmp_path):
    assert not failed(run("imagej-set-scale", {"image": calibrated(tmp_path / "a.tif", "micron", 5.0)}))
    assert not failed(run("imagej-set-scale", {"image": calibrated(tmp_path / "b.tif", "um", 5.0)}))
    result = run("imagej-set-scale", {"image": calibrated(tmp_path / "c.tif", "micron", 10.0)})  # 100 px = 10 µm
    assert failed(result) == ["image pixel size 0.2"], result
    result = run("imagej-set-scale", {"image": calibrated(tmp_path / "d.tif", "mm", 5.0)})
    assert failed(result) == ["image calibrated in micron"]
    result = run("imagej-set-scale", {"image": calibrated(tmp_path / "e.tif", None, None)})  # the scale not set
    assert set(failed(result)) == {"image calibrated in micron", "image pixel size 0.2"}, result
    inverted = calibrated(tmp_path / "f.tif", "micron", 5.0, ImageOps.invert(cells()))
    assert failed(run("imagej-set-scale", {"image": inverted})) == ["image keeps the pixels of imaging/cells.tif"]
    png = save(cells(), tmp_path / "g.png")
    result = run("imagej-set-scale", {"image": png})
    assert set(failed(result)) == {"image calibrated in micron", "image pixel size 0.2"} and "not a TIFF" in says(result)
    assert all_fail(run("imagej-set-scale", {}), "not produced")


def test_l2_pictures(tmp_path):
    rotated = cells().rotate(-90, expand=True).crop((60, 40, 190, 200))
    good = save(imagej_more.find_edges(rotated), tmp_path / "edges_crop.png")
    assert not failed(run("imagej-rotate-crop-edges", {"image": good}))
    unrotated = save(imagej_more.find_edges(cells().crop((60, 40, 190, 200))), tmp_path / "u.png")
    assert failed(run("imagej-rotate-crop-edges", {"image": unrotated})) == [
        "image shows imaging/cells.tif after rotate 90, crop 60 40 190 200, edges"]
    from suites.prosoft.checks.imaging_common import to_8bit
    deep = Image.open(FIX / "imaging" / "cells16.tif")
    eight = np.asarray(to_8bit(deep), dtype=int)
    good = save(imagej_more.median(Image.fromarray(np.clip(eight - 20, 0, 255).astype(np.uint8)), 1), tmp_path / "c.tif")
    assert not failed(run("imagej-clean-16bit", {"image": good}))
    no_median = save(Image.fromarray(np.clip(eight - 20, 0, 255).astype(np.uint8)), tmp_path / "n.tif")
    assert failed(run("imagej-clean-16bit", {"image": no_median})) == [
        "image shows imaging/cells16.tif after to8bit, subtract 20, median 1"]
    sixteen = tmp_path / "s.tif"
    deep.save(sixteen)  # still 16-bit: not converted
    assert "image is 8-bit grayscale" in failed(run("imagej-clean-16bit", {"image": sixteen}))


def results_csv(path: Path, areas: Sequence[float]) -> Path:
    path.write_text(" ,Area,Mean,Min,Max\n" + "".join(f"{i},{a},255,255,255\n" for i, a in enumerate(areas, 1)))
    return path


def test_l2_results(tmp_path):
    from suites.prosoft.make.imagej_more import PIXEL_UM, SPOT_AREAS
    from suites.prosoft.make.imaging import CELL_AREAS

    assert not failed(run("imagej-stack-spots", {"results": results_csv(tmp_path / "s.csv", SPOT_AREAS)}))
    one_slice = results_csv(tmp_path / "one.csv", SPOT_AREAS[:1])  # the first slice analysed, not the projection
    assert set(failed(run("imagej-stack-spots", {"results": one_slice}))) == {"results has 6 rows", "results Area values"}
    um2 = [a * PIXEL_UM ** 2 for a in CELL_AREAS]
    assert not failed(run("imagej-calibrated-areas", {"results": results_csv(tmp_path / "c.csv", um2)}))
    pixels = results_csv(tmp_path / "p.csv", CELL_AREAS)  # the scale not set
    assert failed(run("imagej-calibrated-areas", {"results": pixels})) == ["results Area values"]
    result = run("imagej-calibrated-areas", {"results": png_named(tmp_path / "x.csv")})
    assert all_fail(result, "a PNG image"), result


# --- GIMP (tasks/gimp_l2_more.json) ------------------------------------------------------------------------------

def test_gimp_posterize_rotate_tiff(tmp_path):
    from suites.prosoft.checks.gimp_more import transform_more

    group = tasks("gimp_l2_more")
    truth = truth_of(group, "gimp-posterize-rotate-tiff", "gimp_adjusted")
    poster = Image.open(FIX / "design" / "poster.png").convert("RGB")

    def check(image: Image.Image, name: str, fmt: str = "TIFF") -> list[str]:
        path = tmp_path / name
        image.save(path, fmt)
        return failed(milestones("gimp_adjusted", truth, {"image": path}))

    assert check(transform_more(poster, [["posterize", 4], ["rotate", 90]]), "good.tif") == []
    content = "image shows design/poster.png after posterize 4, rotate 90"
    assert check(transform_more(poster, [["posterize", 4], ["rotate", 270]]), "ccw.tif") == [content]
    assert check(transform_more(poster, [["rotate", 90]]), "plain.tif") == [content]  # not posterized
    assert check(transform_more(poster, [["posterize", 4]]), "unrotated.tif") == ["image is 200x300 px", content]
    assert check(transform_more(poster, [["posterize", 4], ["rotate", 90]]), "png.tif", "PNG") == ["image is a TIFF file"]
    result = milestones("gimp_adjusted", truth, {})
    assert all_fail(result, "not produced")
