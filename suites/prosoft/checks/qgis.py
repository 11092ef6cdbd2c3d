"""QGIS evaluators: the vector files QGIS saves (GeoJSON, CSV) and its project files (``.qgs`` XML, or ``.qgz``
holding one).

Ground truth, by kind:

- ``geojson``: ``artifact`` (default ``layer``); ``count`` (features); ``ids`` {"field": f, "values": [..]}
  (exactly these features, by that field); ``fields`` [names every feature carries]; ``values``
  {field: {id: value}} (features found by ``id_field``, default ``id``; numbers within ``tolerance``, default
  0.01); ``areas`` {id: m²} (polygon areas in the file's coordinates, relative ``area_tolerance``, default
  0.001); ``bounds`` [xmin, ymin, xmax, ymax] every coordinate lies within (e.g. a reprojection to degrees);
  ``geometry`` "Polygon" (every feature's type, Multi- accepted)
- ``csv_table``: ``artifact`` (default ``table``); ``count`` (rows); ``columns`` [names present]; ``values``
  {column: {id: value}} keyed by ``id_field``
- ``qgs``: ``artifact`` (default ``project``); ``layers`` [{"source": substring of the data source, "name":
  layer name, "provider": "ogr"}]; ``crs`` ("EPSG:4326": the project's CRS)
"""

from __future__ import annotations

import csv
import json
import math
import zipfile
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from pytest_cua import EvalContext

from .engineering_common import Check, load, same_value


def features(path: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise AssertionError(f"{path.name}: not GeoJSON ({exc})") from None
    assert isinstance(data, dict) and data.get("type") == "FeatureCollection", (
        f"{path.name}: not a GeoJSON FeatureCollection")
    return list(data.get("features") or [])


def _rings(geometry: Mapping[str, Any]) -> Iterator[list[list[float]]]:
    kind, coords = geometry.get("type"), geometry.get("coordinates") or []
    polygons = [coords] if kind == "Polygon" else coords if kind == "MultiPolygon" else []
    for polygon in polygons:
        yield from polygon


def _points(geometry: Mapping[str, Any] | None) -> Iterator[list[float]]:
    def walk(c: Any) -> Iterator[list[float]]:
        if c and isinstance(c[0], (int, float)):
            yield c
        else:
            for item in c or []:
                yield from walk(item)
    yield from walk((geometry or {}).get("coordinates"))


def polygon_area(geometry: Mapping[str, Any]) -> float:
    """Area of a (Multi)Polygon in its own units: outer rings minus holes (shoelace; rings' orientation ignored,
    the first ring of each polygon is the outer one)."""
    kind, coords = geometry.get("type"), geometry.get("coordinates") or []
    polygons = [coords] if kind == "Polygon" else coords if kind == "MultiPolygon" else []
    total = 0.0
    for polygon in polygons:
        for i, ring in enumerate(polygon):
            a = abs(sum(x0 * y1 - x1 * y0 for (x0, y0, *_), (x1, y1, *_) in zip(ring, ring[1:]))) / 2
            total += a if i == 0 else -a
    return total


def _by_id(items: list[dict[str, Any]], field: str) -> dict[str, dict[str, Any]]:
    return {str(_id_text(f.get("properties", {}).get(field))): f for f in items}


def _id_text(value: Any) -> str:
    number = value if isinstance(value, (int, float)) else None
    if number is None:
        try:
            number = float(value)
        except (TypeError, ValueError):
            return str(value)
    return str(int(number)) if float(number).is_integer() else str(number)


def geojson_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "layer")
    id_field = truth.get("id_field", "id")
    checks: list[Check] = []

    def load_features() -> list[dict[str, Any]]:
        return load(ctx, name, "text", features)

    if "count" in truth:
        def check_count() -> None:
            n = len(load_features())
            assert n == truth["count"], f"{name}: {n} feature(s), expected {truth['count']}"
        checks.append((f"{name} has {truth['count']} features", check_count))
    if truth.get("ids"):
        def check_ids() -> None:
            field = truth["ids"]["field"]
            got = sorted(_id_text(f.get("properties", {}).get(field)) for f in load_features())
            want = sorted(_id_text(v) for v in truth["ids"]["values"])
            assert got == want, f"{name}: features with {field} {got}, expected {want}"
        checks.append((f"{name} holds the right features", check_ids))
    if truth.get("fields"):
        def check_fields() -> None:
            items = load_features()
            assert items, f"{name}: no features"
            missing = sorted({f for item in items for f in truth["fields"] if f not in (item.get("properties") or {})})
            assert not missing, f"{name}: features lack the field(s) {missing} (have {sorted(items[0].get('properties') or {})})"
        checks.append((f"{name} fields {', '.join(truth['fields'])}", check_fields))
    for field, expected in sorted((truth.get("values") or {}).items()):
        def check_values(field: str = field, expected: Mapping[str, Any] = expected) -> None:
            items = _by_id(load_features(), id_field)
            wrong = []
            for fid, want in sorted(expected.items()):
                got = (items.get(str(fid)) or {}).get("properties", {}).get(field)
                if not same_value(got, want, float(truth.get("tolerance", 0.01))):
                    wrong.append(f"{id_field} {fid}: {got!r} (expected {want!r})")
            assert not wrong, f"{name}: field {field}: {'; '.join(wrong)}"
        checks.append((f"{name} field {field} values", check_values))
    if truth.get("areas"):
        def check_areas() -> None:
            items = _by_id(load_features(), id_field)
            rel = float(truth.get("area_tolerance", 0.001))
            wrong = []
            for fid, want in sorted(truth["areas"].items()):
                item = items.get(str(fid))
                got = polygon_area(item.get("geometry") or {}) if item else None
                if got is None or not math.isclose(got, want, rel_tol=rel):
                    wrong.append(f"{id_field} {fid}: {got if got is None else round(got, 1)} (expected {want})")
            assert not wrong, f"{name}: polygon areas: {'; '.join(wrong)}"
        checks.append((f"{name} polygon areas", check_areas))
    if truth.get("bounds"):
        def check_bounds() -> None:
            x0, y0, x1, y1 = truth["bounds"]
            points = [p for f in load_features() for p in _points(f.get("geometry"))]
            assert points, f"{name}: no coordinates"
            out = [p for p in points if not (x0 <= p[0] <= x1 and y0 <= p[1] <= y1)]
            assert not out, (f"{name}: {len(out)} of {len(points)} coordinates lie outside {truth['bounds']} "
                             f"(e.g. {out[0][:2]}): not in the asked coordinate system")
        checks.append((f"{name} coordinates within {truth['bounds']}", check_bounds))
    if truth.get("geometry"):
        def check_geometry() -> None:
            kinds = sorted({str((f.get("geometry") or {}).get("type")) for f in load_features()})
            want = truth["geometry"]
            assert kinds and all(k in (want, "Multi" + want) for k in kinds), f"{name}: geometries {kinds}, expected {want}"
        checks.append((f"{name} {truth['geometry']} geometries", check_geometry))
    return checks


def csv_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "table")
    id_field = truth.get("id_field", "id")
    checks: list[Check] = []

    def read_rows(path: Path) -> list[dict[str, str]]:
        with open(path, newline="", encoding="utf-8-sig") as f:
            return list(csv.DictReader(f))

    def load_rows() -> list[dict[str, str]]:
        return load(ctx, name, "text", read_rows)

    if "count" in truth:
        def check_count() -> None:
            n = len(load_rows())
            assert n == truth["count"], f"{name}: {n} row(s), expected {truth['count']}"
        checks.append((f"{name} has {truth['count']} rows", check_count))
    if truth.get("columns"):
        def check_columns() -> None:
            rows = load_rows()
            have = list(rows[0]) if rows else []
            missing = [c for c in truth["columns"] if c not in have]
            assert not missing, f"{name}: missing column(s) {missing} (columns: {have})"
        checks.append((f"{name} columns {', '.join(truth['columns'])}", check_columns))
    for column, expected in sorted((truth.get("values") or {}).items()):
        def check_values(column: str = column, expected: Mapping[str, Any] = expected) -> None:
            rows = {_id_text(r.get(id_field)): r for r in load_rows()}
            wrong = [f"{id_field} {fid}: {(rows.get(str(fid)) or {}).get(column)!r} (expected {want!r})"
                     for fid, want in sorted(expected.items())
                     if not same_value((rows.get(str(fid)) or {}).get(column), want, float(truth.get("tolerance", 0.01)))]
            assert not wrong, f"{name}: column {column}: {'; '.join(wrong)}"
        checks.append((f"{name} column {column} values", check_values))
    return checks


# --- projects --------------------------------------------------------------------------------------------------

def project_root(path: Path) -> Any:
    """The ``<qgis>`` element of a .qgs file, or of the .qgs inside a .qgz."""
    from lxml import etree

    data = path.read_bytes()
    if data[:2] == b"PK":
        with zipfile.ZipFile(path) as z:
            inner = [n for n in z.namelist() if n.endswith(".qgs")]
            assert inner, f"{path.name}: a zip without a .qgs project inside"
            data = z.read(inner[0])
    try:
        root = etree.fromstring(data)
    except etree.XMLSyntaxError as exc:
        raise AssertionError(f"{path.name}: not a QGIS project ({exc})") from None
    assert root.tag == "qgis", f"{path.name}: not a QGIS project (root element <{root.tag}>)"
    return root


def project_layers(root: Any) -> list[dict[str, str]]:
    return [{"name": layer.findtext("layername") or "", "source": layer.findtext("datasource") or "",
             "provider": layer.findtext("provider") or ""} for layer in root.iter("maplayer")]


def qgs_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "project")
    checks: list[Check] = []

    def load_layers() -> list[dict[str, Any]]:
        return load(ctx, name, "qgis_project", lambda p: project_layers(project_root(p)))

    for spec in truth.get("layers") or []:
        def check_layer(spec: Mapping[str, Any] = spec) -> None:
            layers = load_layers()
            seen = [(lay["name"], Path(lay["source"].split("|")[0]).name) for lay in layers]
            assert any(spec.get("source", "") in lay["source"] and lay["name"] == spec.get("name", lay["name"])
                       and lay["provider"] == spec.get("provider", lay["provider"]) for lay in layers), (
                f"{name}: no layer {spec.get('name', '')!r} from {spec.get('source', '')!r} (layers: {seen})")
        checks.append((f"{name} layer {spec.get('name') or spec.get('source')}", check_layer))
    if truth.get("crs"):
        def check_crs() -> None:
            root = load(ctx, name, "qgis_project", project_root)
            got = root.findtext("projectCrs/spatialrefsys/authid")
            assert got == truth["crs"], f"{name}: the project CRS is {got}, expected {truth['crs']}"
        checks.append((f"{name} project CRS {truth['crs']}", check_crs))
    return checks


KINDS: dict[str, Callable[[EvalContext, Mapping[str, Any]], list[Check]]] = {
    "geojson": geojson_checks, "csv_table": csv_checks, "qgs": qgs_checks}
