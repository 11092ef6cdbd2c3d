"""More QGIS evaluators next to ``qgis.py``: vector layers saved as GeoPackage as well as GeoJSON (point
positions too), the layer settings a project file keeps (a filter, a renderer), and a map exported as a
georeferenced picture.

Kinds and their ground truth:

- ``gis_layer``: every key of ``qgis.py``'s ``geojson`` (``artifact``, ``count``, ``ids``, ``fields``, ``values``,
  ``areas``, ``bounds``, ``geometry``, ``id_field``, ``tolerance``, ``area_tolerance``) on a GeoJSON file or a
  GeoPackage (its first feature table, read here with sqlite3 and a WKB parser), plus ``format`` ("GeoPackage"
  or "GeoJSON": what the file must be by its content), ``points`` {id: [x, y]} (each feature's point, within
  ``point_tolerance``, default 0.01, in the file's units) and ``total_area`` (the polygons' areas added up, within
  ``area_tolerance``: for a result whose features carry no telling id, such as one dissolved feature).
- ``qgs_layer``: a project (``.qgs``, or ``.qgz`` holding one) and one of its layers (``layer``: a substring of
  its data source, default the first layer): ``subset`` {"table": start file (relative to fixtures/prosoft) whose
  features the filter is run on, "id_field": "id", "ids": [..]}: the layer's provider filter keeps exactly these
  features (the filter is run as an SQL WHERE clause on the table's attributes, so any equivalent expression
  passes); ``renderer`` {"type": "categorizedSymbol", "attr": "landuse", "categories": [values]} (the layer's
  renderer type, its field, and every category value present); ``name`` (the layer's name).
- ``map_image``: a picture exported with Project > Import/Export > Export Map to Image and its world file:
  ``artifact`` (default "image"), ``world`` (the world file's artifact, default "world"), ``format`` ("PNG"),
  ``covers`` [xmin, ymin, xmax, ymax] (map units the picture's extent must hold), ``max_extent`` (the extent's
  width and height at most this many map units: the map was not zoomed far out).
"""

from __future__ import annotations

import json
import math
import sqlite3
import struct
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable, Mapping

from pytest_cua import fixtures_dir

from ..artifacts import Check, artifact, identify, load, reading
from .qgis import _id_text, _points, features, geojson_checks, polygon_area, project_root

FIXTURES = fixtures_dir("prosoft")
SQLITE = b"SQLite format 3\x00"
LAYER_KEYS = ("count", "ids", "fields", "values", "areas", "bounds", "geometry")


# --- GeoPackage -------------------------------------------------------------------------------------------------

class _Reader:
    """Well-known binary read from a byte string (each geometry may switch the byte order)."""

    def __init__(self, data: bytes, offset: int = 0) -> None:
        self.data, self.pos = data, offset

    def take(self, fmt: str) -> tuple[Any, ...]:
        size = struct.calcsize(fmt)
        values = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += size
        return values

    def geometry(self) -> dict[str, Any]:
        (order,) = self.take("B")
        end = "<" if order == 1 else ">"
        (code,) = self.take(end + "I")
        dims = 2
        if code & 0x80000000 or code & 0x40000000:  # EWKB Z / M flags
            dims += bool(code & 0x80000000) + bool(code & 0x40000000)
            code &= 0xFFFF
        if code >= 1000:  # ISO Z (1000s), M (2000s), ZM (3000s)
            dims += {1: 1, 2: 1, 3: 2}[code // 1000]
            code %= 1000

        def point() -> list[float]:
            return list(self.take(end + "d" * dims))[:2]

        def line() -> list[list[float]]:
            (n,) = self.take(end + "I")
            return [point() for _ in range(n)]

        def polygon() -> list[list[list[float]]]:
            (n,) = self.take(end + "I")
            return [line() for _ in range(n)]

        def many(kind: str) -> list[Any]:
            (n,) = self.take(end + "I")
            parts = [self.geometry() for _ in range(n)]
            assert all(p["type"] == kind for p in parts), f"a Multi{kind} holding {[p['type'] for p in parts]}"
            return [p["coordinates"] for p in parts]

        readers: dict[int, tuple[str, Callable[[], Any]]] = {
            1: ("Point", point), 2: ("LineString", line), 3: ("Polygon", polygon),
            4: ("MultiPoint", lambda: many("Point")), 5: ("MultiLineString", lambda: many("LineString")),
            6: ("MultiPolygon", lambda: many("Polygon"))}
        assert code in readers, f"geometry type {code} is not read here"
        kind, read = readers[code]
        return {"type": kind, "coordinates": read()}


def gpkg_geometry(blob: bytes | None) -> dict[str, Any] | None:
    """A GeoPackage geometry blob (the 'GP' header, an optional envelope, then WKB) as a GeoJSON geometry."""
    if blob is None:
        return None
    assert blob[:2] == b"GP", f"a geometry blob that is not a GeoPackage geometry (starts {blob[:4]!r})"
    flags = blob[3]
    envelope = {0: 0, 1: 32, 2: 48, 3: 48, 4: 64}.get((flags >> 1) & 0x07)
    assert envelope is not None, f"a GeoPackage geometry with an unknown envelope ({flags:#x})"
    if flags & 0x10:  # the empty-geometry flag
        return None
    return _Reader(blob, 8 + envelope).geometry()


def gpkg_features(path: Path, table: str | None = None) -> list[dict[str, Any]]:
    """The features of a GeoPackage's feature table (``table``, or the first one) as GeoJSON features."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [row[0] for row in con.execute(
            "SELECT table_name FROM gpkg_contents WHERE data_type = 'features' ORDER BY table_name")]
        assert tables, f"{path.name}: a GeoPackage without a feature table"
        name = table if table in tables else tables[0]
        geometry_columns = [row[0] for row in con.execute(
            "SELECT column_name FROM gpkg_geometry_columns WHERE table_name = ?", (name,))]
        cursor = con.execute(f'SELECT * FROM "{name}"')
        columns = [d[0] for d in cursor.description]
        out = []
        for row in cursor:
            record = dict(zip(columns, row))
            geometry = gpkg_geometry(record.pop(geometry_columns[0])) if geometry_columns else None
            record.pop("fid", None)
            out.append({"type": "Feature", "properties": record, "geometry": geometry})
        return out
    finally:
        con.close()


def is_sqlite(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(16) == SQLITE


class _AsGeoJSON:
    """A task's artifacts with each GeoPackage among them read into a GeoJSON file in ``folder``, so that
    ``qgis.py``'s GeoJSON checks judge either format (a GeoPackage that cannot be read is a missed milestone)."""

    def __init__(self, artifacts: Mapping[str, Any], folder: Path) -> None:
        self.artifacts, self.folder = artifacts, folder

    def get(self, name: str, default: Any = None) -> Any:
        path = self.artifacts.get(name, default)
        if path is None or not Path(path).is_file() or Path(path).stat().st_size == 0 or not is_sqlite(Path(path)):
            return path
        path = Path(path)
        with reading(name, path, "a GeoPackage"):
            items = gpkg_features(path)
        out = self.folder / f"{path.name}.geojson"
        out.write_text(json.dumps({"type": "FeatureCollection", "features": items}), encoding="utf-8")
        return out


def layer_features(ctx: Any, name: str) -> list[dict[str, Any]]:
    """The features of artifact ``name``, a GeoPackage or a GeoJSON file."""
    path = artifact(ctx, name)
    if is_sqlite(path):
        with reading(name, path, "a GeoPackage"):
            return gpkg_features(path)
    return load(ctx, name, "text", features)


def gis_layer_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "layer")
    id_field = truth.get("id_field", "id")
    checks: list[Check] = []
    if "format" in truth:
        want = str(truth["format"])
        assert want in ("GeoPackage", "GeoJSON"), f"gis_layer: format {want!r} (GeoPackage or GeoJSON)"

        def check_format() -> None:
            path = artifact(ctx, name)
            sqlite = is_sqlite(path)
            if want == "GeoPackage":
                assert sqlite, f"artifact {name!r} ({path.name}) is not a GeoPackage: it is {identify(path)}"
            else:
                assert not sqlite, f"artifact {name!r} ({path.name}) is a GeoPackage, not GeoJSON"
                load(ctx, name, "text", lambda p: json.loads(p.read_text(encoding="utf-8")))
        checks.append((f"{name} is a {want} file", check_format))
    if any(key in truth for key in LAYER_KEYS):
        folder = Path(tempfile.mkdtemp(prefix="gis_layer_"))
        view = SimpleNamespace(artifacts=_AsGeoJSON(ctx.artifacts, folder), task=getattr(ctx, "task", None),
                               env=getattr(ctx, "env", None))
        own = ("format", "points", "total_area")
        checks += geojson_checks(view, {k: v for k, v in truth.items() if k not in own})  # type: ignore[arg-type]
    if truth.get("total_area"):
        want_total = float(truth["total_area"])

        def check_total() -> None:
            got = sum(polygon_area(f.get("geometry") or {}) for f in layer_features(ctx, name))
            rel = float(truth.get("area_tolerance", 0.001))
            assert math.isclose(got, want_total, rel_tol=rel), (
                f"{name}: the polygons cover {got:.1f} in all, expected {want_total} (±{rel:.1%})")
        checks.append((f"{name} total area", check_total))
    if truth.get("points"):
        def check_points() -> None:
            items = layer_features(ctx, name)
            tol = float(truth.get("point_tolerance", 0.01))
            by_id = {_key(f.get("properties", {}).get(id_field)): f for f in items}
            wrong = []
            for fid, (x, y) in sorted(truth["points"].items()):
                item = by_id.get(_key(fid))
                got = list(_points(item.get("geometry"))) if item else []
                if len(got) != 1 or abs(got[0][0] - x) > tol or abs(got[0][1] - y) > tol:
                    shown = [[round(c, 3) for c in p[:2]] for p in got[:2]] if item else "no such feature"
                    wrong.append(f"{id_field} {fid}: {shown} (expected [{x}, {y}])")
            assert not wrong, f"{name}: points: {'; '.join(wrong)}"
        checks.append((f"{name} points", check_points))
    if not checks:
        raise ValueError(f"gis_layer ground truth for {name!r} asks for no checks")
    return checks


def _key(value: Any) -> str:
    return _id_text(value)


# --- project layers ------------------------------------------------------------------------------------------

def _layer(root: Any, source: str, name: str) -> Any:
    layers = list(root.iter("maplayer"))
    assert layers, f"{name}: the project has no layers"
    for layer in layers:
        if source in (layer.findtext("datasource") or ""):
            return layer
    seen = [Path((lay.findtext("datasource") or "").split("|")[0]).name for lay in layers]
    raise AssertionError(f"{name}: no layer from {source!r} (sources: {seen})")


def layer_subset(layer: Any) -> str:
    """The provider filter of a project layer (``|subset=`` in an OGR data source, or a ``<subset>`` element)."""
    source = layer.findtext("datasource") or ""
    for part in source.split("|")[1:]:
        if part.startswith("subset="):
            return part[len("subset="):]
    return (layer.findtext("subset") or "").strip()


def table_rows(source: str) -> list[dict[str, Any]]:
    """The attributes of a start file's features (a GeoJSON file under fixtures/prosoft)."""
    path = FIXTURES / source
    if not path.is_file():
        raise ValueError(f"qgs_layer ground truth: table {source!r} is not a start file ({path} not found)")
    return [dict(f.get("properties") or {}) for f in json.loads(path.read_text(encoding="utf-8"))["features"]]


def filtered_ids(subset: str, rows: list[dict[str, Any]], id_field: str) -> list[str]:
    """The ids of the rows a layer filter keeps, the filter run as an SQL WHERE clause (OGR's SQL dialect for
    these filters is close to SQLite's) on an in-memory table of the rows; an unreadable filter is a miss."""
    columns = sorted({k for row in rows for k in row})
    con = sqlite3.connect(":memory:")
    try:
        con.execute(f"CREATE TABLE layer ({', '.join(json.dumps(c) for c in columns)})")
        con.executemany(f"INSERT INTO layer VALUES ({', '.join('?' for _ in columns)})",
                        [[row.get(c) for c in columns] for row in rows])
        try:
            kept = con.execute(f"SELECT {json.dumps(id_field)} FROM layer WHERE {subset}").fetchall()
        except sqlite3.Error as exc:
            raise AssertionError(f"the layer filter {subset!r} is not a valid expression ({exc})") from None
    finally:
        con.close()
    return sorted((_id_text(r[0]) for r in kept), key=lambda v: (len(v), v))


def qgs_layer_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "project")
    source = str(truth.get("layer", ""))
    checks: list[Check] = []

    def layer() -> Any:
        return _layer(load(ctx, name, "qgis_project", project_root), source, name)

    if truth.get("name"):
        def check_name() -> None:
            got = layer().findtext("layername")
            assert got == truth["name"], f"{name}: the layer is named {got!r}, expected {truth['name']!r}"
        checks.append((f"{name} layer named {truth['name']}", check_name))
    if truth.get("subset"):
        spec = truth["subset"]
        rows = table_rows(spec["table"])
        want = sorted((str(v) for v in spec["ids"]), key=lambda v: (len(v), v))

        def check_subset() -> None:
            subset = layer_subset(layer())
            assert subset.strip(), f"{name}: the layer has no filter (it shows all {len(rows)} features)"
            got = filtered_ids(subset, rows, spec.get("id_field", "id"))
            assert got == want, f"{name}: the filter {subset!r} keeps {spec.get('id_field', 'id')} {got}, expected {want}"
        checks.append((f"{name} layer filter keeps {len(want)} features", check_subset))
    if truth.get("renderer"):
        spec = truth["renderer"]

        def renderer() -> Any:
            found = layer().find("renderer-v2")
            assert found is not None, f"{name}: the layer has no renderer"
            return found

        def check_renderer() -> None:
            found = renderer()
            got = (found.get("type"), found.get("attr"))
            want = (spec["type"], spec.get("attr", found.get("attr")))
            assert got == want, f"{name}: the layer's renderer is {got[0]} on {got[1]!r}, expected {want[0]} on {want[1]!r}"
        checks.append((f"{name} renderer {spec['type']}" + (f" on {spec['attr']}" if spec.get("attr") else ""),
                       check_renderer))
        if spec.get("categories"):
            def check_categories() -> None:
                got = sorted(c.get("value", "") for c in renderer().iter("category"))
                missing = [v for v in spec["categories"] if v not in got]
                assert not missing, f"{name}: the renderer has categories {got}, missing {missing}"
            checks.append((f"{name} categories {', '.join(spec['categories'])}", check_categories))
    if not checks:
        raise ValueError(f"qgs_layer ground truth for {name!r} asks for no checks (name, subset, renderer)")
    return checks


# --- map pictures ------------------------------------------------------------------------------------------

def world_file(path: Path) -> list[float]:
    """The six numbers of a world file (pixel width, rotation, rotation, negative pixel height, x and y of the
    upper-left pixel's centre)."""
    numbers = [float(v) for v in path.read_text(encoding="utf-8").split()]
    assert len(numbers) == 6, f"{path.name}: {len(numbers)} numbers, a world file has 6"
    return numbers


def extent(size: tuple[int, int], world: list[float]) -> tuple[float, float, float, float]:
    a, d, b, e, c, f = world
    assert d == 0 and b == 0, f"a rotated world file ({d}, {b})"
    x0, y1 = c - a / 2, f - e / 2
    x1, y0 = x0 + a * size[0], y1 + e * size[1]
    return min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)


def map_image_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    from .imaging_common import open_image

    name, world_name = truth.get("artifact", "image"), truth.get("world", "world")
    checks: list[Check] = []

    def picture() -> Any:
        return open_image(artifact(ctx, name, "image"))

    if "format" in truth:
        def check_format() -> None:
            got = picture().format
            assert got == truth["format"], f"{name}: saved as {got}, expected {truth['format']}"
        checks.append((f"{name} is a {truth['format']} file", check_format))
    if truth.get("covers"):
        cx0, cy0, cx1, cy1 = truth["covers"]

        def check_extent() -> None:
            size = picture().size
            x0, y0, x1, y1 = load(ctx, world_name, "text", lambda p: extent(size, world_file(p)))
            shown = [round(v, 1) for v in (x0, y0, x1, y1)]
            assert x0 <= cx0 and y0 <= cy0 and x1 >= cx1 and y1 >= cy1, (
                f"{name}: the map shows {shown} (from {world_name}), not all of {truth['covers']}")
            if truth.get("max_extent"):
                assert max(x1 - x0, y1 - y0) <= float(truth["max_extent"]), (
                    f"{name}: the map shows {shown}, wider than {truth['max_extent']} map units: zoomed out")
        checks.append((f"{name} georeferenced over {truth['covers']}", check_extent))
    if not checks:
        raise ValueError(f"map_image ground truth for {name!r} asks for no checks (format, covers)")
    return checks


KINDS = {"gis_layer": gis_layer_checks, "qgs_layer": qgs_layer_checks, "map_image": map_image_checks}
