"""Writes tasks/science_round3.json: a third group of QGIS (ArcGIS's stand-in) and ImageJ tasks, one core function
of the program per L1 task that no earlier task of it uses, and L2 tasks that chain them. Run
``python suites/prosoft/make/science_round3.py`` from the repository root.

QGIS: select by location, minimum bounding geometry (a convex hull), points from a table's coordinates, merge
vector layers (L1); wells buffered, the parcels touching the site buffered, the wells in WGS 84 (L2). Start files:
``engineering/parcels.geojson``, ``science_more/site.geojson`` and ``QGIS3.ini`` (read only), and
``science_round3/wells.csv`` with its ``wells.csvt`` (``make_fixtures.py`` there). Evaluator: ``qgis_more``'s
``gis_layer``. Demonstrations run the processing algorithms from QGIS's own command line, its Python console
(Plugins > Python Console, Ctrl+Alt+P: ``processing.run``), the instructions name the menu paths.

ImageJ: Smooth, Sharpen, Maximum filter, Scale (L1); a sharpened maximum projection, a smoothed 16-bit picture's
maximum filter, a flipped picture's minimum filter less an offset (L2). Start files: ``imaging/`` and
``science_more/stack.tif`` (read only). Evaluator: ``checks/science_round3.py``'s ``imagej_filtered``.
Demonstrations run each command through ImageJ's Command Finder (Ctrl+L), as ``make/imagej_more.py``'s do.
"""
import importlib.util
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import C, K, T, W, task, write  # noqa: E402
from engineering import MAXIMIZE, PARCEL_FIELDS, QGIS_CARD, QGIS_INI  # noqa: E402
from imagej_more import IJ_CARD, LIMITS, STACK, STACK_SIZE, Z_PROJECT, ij_save_as, stack_start  # noqa: E402
from imaging import ij_command, imagej_start  # noqa: E402
from qgis_more import CLIP, PARCEL_IDS, SCIENCE, buffered_area  # noqa: E402

_spec = importlib.util.spec_from_file_location(  # this group's make_fixtures.py, under a name of its own
    "round3_fixtures", Path(__file__).resolve().parents[3] / "fixtures" / "prosoft" / "science_round3" / "make_fixtures.py")
ROUND3 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ROUND3)

WORK = "/root/work"
ENG, SCI, R3 = "fixtures/prosoft/engineering", "fixtures/prosoft/science_more", "fixtures/prosoft/science_round3"
WELLS = ROUND3.WELLS
WELL_IDS = [w[0] for w in WELLS]
NEAR_SITE = sorted(CLIP)  # the parcels that intersect site.geojson (all but the park B1 east of it)
WGS84_BOUNDS = [14.99, 45.15, 15.01, 45.16]


# --- QGIS --------------------------------------------------------------------------------------------------------

def qgis(artifacts, *layers):
    """QGIS with ``layers`` (start files by their fixture path, the last one the active layer) open, maximised."""
    files = [{"src": f"{SCI}/QGIS3.ini", "dest": QGIS_INI}]
    for src in layers:
        name = src.rsplit("/", 1)[1]
        files.append({"src": src, "dest": f"{WORK}/{name}"})
        if name.endswith(".csv"):
            files.append({"src": src + "t", "dest": f"{WORK}/{name}t"})
    return {"start_files": files,
            "start_command": ["qgis", "--nologo", "--noversioncheck", *(f"{WORK}/{s.rsplit('/', 1)[1]}" for s in layers)],
            "window": "QGIS", "window_timeout_s": 240, "start_commands": [MAXIMIZE], "artifacts": artifacts}


PARCELS, SITE, WELLS_CSV = f"{ENG}/parcels.geojson", f"{SCI}/site.geojson", f"{R3}/wells.csv"


def console(*lines):
    """The Python console (Plugins > Python Console, Ctrl+Alt+P), its input line clicked, then each line typed
    and run (``processing`` imported first)."""
    steps = [K("ctrl", "alt", "p"), W(5), C(790, 716), W(1), T("processing = __import__(\"processing\")\n"), W(2)]
    for line in lines:
        steps += [T(line + "\n"), W(4)]
    return steps


def run(alg, **params):
    """A ``processing.run`` call; a value written ``@...`` is Python, anything else a string."""
    body = ", ".join(f'"{k}": {v[1:] if isinstance(v, str) and v.startswith("@") else repr(v)}'
                     for k, v in params.items())
    return f'processing.run("{alg}", {{{body}}})'


LAYER = "lay = iface.activeLayer()"
SELECTED = "@QgsProcessingFeatureSourceDefinition(lay.id(), True)"
SELECT_NEAR_SITE = run("native:selectbylocation", INPUT="@lay", PREDICATE=[0], INTERSECT=f"{WORK}/site.geojson",
                       METHOD=0)


def wells_points(path="memory:"):
    return run("native:createpointslayerfromtable", INPUT=f"{WORK}/wells.csv", XFIELD="x", YFIELD="y",
               TARGET_CRS="EPSG:32633", OUTPUT=path)


def convex_hull_area(points):
    """Area of the convex hull of ``points`` (Andrew's monotone chain, then the shoelace formula)."""
    pts = sorted(set(points))

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    def half(seq):
        out = []
        for p in seq:
            while len(out) >= 2 and cross(out[-2], out[-1], p) <= 0:
                out.pop()
            out.append(p)
        return out[:-1]

    hull = half(pts) + half(pts[::-1])
    return abs(sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(hull, hull[1:] + hull[:1]))) / 2


def corners(pid):
    x0, y0, x1, y1 = SCIENCE.rectangle(pid)
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


HULL_AREA = round(convex_hull_area([c for pid in PARCEL_IDS for c in corners(pid)]), 1)
PARCEL_AREA = sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in map(SCIENCE.rectangle, PARCEL_IDS))
SITE_AREA = (SCIENCE.SITE[2] - SCIENCE.SITE[0]) * (SCIENCE.SITE[3] - SCIENCE.SITE[1])
DISK_SEGMENTS = 20  # a point buffered: 5 segments per quarter circle


def disk_area(distance):
    import math
    return DISK_SEGMENTS / 2 * distance ** 2 * math.sin(2 * math.pi / DISK_SEGMENTS)


KNOW = [*QGIS_CARD,
        "Vector > Research Tools > Select by Location (features that intersect, are within, ... another layer); "
        "Vector > Geoprocessing Tools > Minimum Bounding Geometry (Geometry type: Convex Hull, no field: one hull "
        "of all features); Vector > Data Management Tools > Merge Vector Layers (adds 'layer' and 'path' fields); "
        "Processing > Toolbox > Vector creation > Create Points Layer from Table (X and Y fields, the target CRS).",
        "Every processing algorithm also runs from the Python console: processing.run('native:buffer', {'INPUT': "
        "..., 'DISTANCE': 10, 'OUTPUT': '/path/out.gpkg'}); QgsProcessingFeatureSourceDefinition(layer.id(), True) "
        "takes only the selected features."]


def gis_task(id, level, instruction, truth, layers, lines, path, knowledge=KNOW):
    return task(id, level, instruction, "gis_layer", {"artifact": "layer", **truth},
                qgis({"layer": path}, *layers), [W(3), *console(*lines)], tags=["qgis", "gis"], knowledge=knowledge,
                **LIMITS[level])


qgis_tasks = [
    gis_task("qgis-select-by-location", "L1",
             "parcels.geojson and site.geojson (the site boundary) are open in QGIS (UTM 33N). Select the parcels "
             "that intersect the site (Vector > Research Tools > Select by Location) and save only the selected "
             "parcels as GeoJSON to /root/work/parcels_at_site.geojson, whole (not clipped).",
             {"format": "GeoJSON", "count": len(NEAR_SITE), "ids": {"field": "id", "values": NEAR_SITE},
              "fields": PARCEL_FIELDS,
              "areas": {str(i): float(SCIENCE.rectangle(i)[2] - SCIENCE.rectangle(i)[0])
                        * (SCIENCE.rectangle(i)[3] - SCIENCE.rectangle(i)[1]) for i in NEAR_SITE},
              "geometry": "Polygon"},
             [SITE, PARCELS], [LAYER, SELECT_NEAR_SITE,
                               run("native:saveselectedfeatures", INPUT="@lay",
                                   OUTPUT=f"{WORK}/parcels_at_site.geojson")],
             f"{WORK}/parcels_at_site.geojson"),
    gis_task("qgis-convex-hull", "L1",
             "parcels.geojson is open in QGIS (UTM 33N, metres). Make one convex hull around all the parcels "
             "(Vector > Geoprocessing Tools > Minimum Bounding Geometry, geometry type Convex Hull, no grouping "
             "field) and save it as a GeoPackage to /root/work/parcels_hull.gpkg.",
             {"format": "GeoPackage", "count": 1, "geometry": "Polygon", "total_area": HULL_AREA,
              "area_tolerance": 0.001},
             [PARCELS], [run("qgis:minimumboundinggeometry", INPUT=f"{WORK}/parcels.geojson", TYPE=3,
                             OUTPUT=f"{WORK}/parcels_hull.gpkg")],
             f"{WORK}/parcels_hull.gpkg"),
    gis_task("qgis-points-from-table", "L1",
             "wells.csv, a table of five wells with their easting (x) and northing (y) in UTM zone 33N metres, is "
             "open in QGIS. Make a point layer from it (Processing Toolbox > Vector creation > Create Points Layer "
             "from Table, X field x, Y field y, CRS EPSG:32633) and save it as a GeoPackage to "
             "/root/work/wells.gpkg.",
             {"format": "GeoPackage", "count": len(WELLS), "geometry": "Point", "fields": ["id", "name"],
              "ids": {"field": "id", "values": WELL_IDS}, "points": {str(w[0]): [w[2], w[3]] for w in WELLS}},
             [WELLS_CSV], [wells_points(f"{WORK}/wells.gpkg")], f"{WORK}/wells.gpkg"),
    gis_task("qgis-merge-layers", "L1",
             "parcels.geojson and site.geojson are open in QGIS, both in UTM 33N. Merge the two layers into one "
             "(Vector > Data Management Tools > Merge Vector Layers) and save the merged layer as GeoJSON to "
             "/root/work/merged.geojson.",
             {"format": "GeoJSON", "count": len(PARCEL_IDS) + 1, "fields": ["name", "layer"], "geometry": "Polygon",
              "total_area": PARCEL_AREA + SITE_AREA, "area_tolerance": 0.001},
             [SITE, PARCELS], [run("native:mergevectorlayers", LAYERS=[f"{WORK}/parcels.geojson",
                                                                        f"{WORK}/site.geojson"],
                                   CRS="EPSG:32633", OUTPUT=f"{WORK}/merged.geojson")],
             f"{WORK}/merged.geojson"),
    # --- L2 ---
    gis_task("qgis-wells-buffer", "L2",
             "wells.csv (columns id, name, x, y: UTM zone 33N metres) is open in QGIS. Make a point layer of the "
             "wells from it (Create Points Layer from Table, EPSG:32633), buffer the wells by 30 metres (Vector > "
             "Geoprocessing Tools > Buffer, default segments), and save the buffer zones as a GeoPackage to "
             "/root/work/wells_buffer30.gpkg, one polygon per well keeping its id.",
             {"format": "GeoPackage", "count": len(WELLS), "geometry": "Polygon",
              "ids": {"field": "id", "values": WELL_IDS},
              "areas": {str(i): round(disk_area(30), 1) for i in WELL_IDS}, "area_tolerance": 0.005},
             [WELLS_CSV], [f"pts = {wells_points()}['OUTPUT']",
                           run("native:buffer", INPUT="@pts", DISTANCE=30, SEGMENTS=5,
                               OUTPUT=f"{WORK}/wells_buffer30.gpkg")],
             f"{WORK}/wells_buffer30.gpkg"),
    gis_task("qgis-site-parcels-buffer", "L2",
             "parcels.geojson and site.geojson are open in QGIS (UTM 33N). Select the parcels that intersect the "
             "site (Select by Location), buffer only the selected parcels by 10 metres (Buffer, 'Selected features "
             "only', not dissolved), and save the result as GeoJSON to /root/work/site_parcels_buffer10.geojson.",
             {"format": "GeoJSON", "count": len(NEAR_SITE), "ids": {"field": "id", "values": NEAR_SITE},
              "areas": {str(i): round(buffered_area(i, 10), 1) for i in NEAR_SITE}, "area_tolerance": 0.005,
              "geometry": "Polygon"},
             [SITE, PARCELS], [LAYER, SELECT_NEAR_SITE,
                               run("native:buffer", INPUT=SELECTED, DISTANCE=10,
                                   OUTPUT=f"{WORK}/site_parcels_buffer10.geojson")],
             f"{WORK}/site_parcels_buffer10.geojson"),
    gis_task("qgis-wells-wgs84", "L2",
             "wells.csv (columns id, name, x, y: UTM zone 33N metres) is open in QGIS. Make a point layer of the "
             "wells from it (Create Points Layer from Table, EPSG:32633), reproject it to WGS 84 (EPSG:4326, "
             "Vector > Data Management Tools > Reproject Layer) and save it as GeoJSON to "
             "/root/work/wells_wgs84.geojson.",
             {"format": "GeoJSON", "count": len(WELLS), "geometry": "Point", "ids": {"field": "id", "values": WELL_IDS},
              "fields": ["id", "name"], "bounds": WGS84_BOUNDS},
             [WELLS_CSV], [f"pts = {wells_points()}['OUTPUT']",
                           run("native:reprojectlayer", INPUT="@pts", TARGET_CRS="EPSG:4326",
                               OUTPUT=f"{WORK}/wells_wgs84.geojson")],
             f"{WORK}/wells_wgs84.geojson"),
]


# --- ImageJ ------------------------------------------------------------------------------------------------------

CELLS, CELLS16 = "imaging/cells.tif", "imaging/cells16.tif"
IJ_KNOW = (IJ_CARD + " Process > Smooth (3x3 mean), Process > Sharpen (3x3), Process > Filters > Maximum / Minimum "
           "(radius in px), Image > Scale (X and Y scale factors, 'Create new window'), Image > Transform > Flip "
           "Vertically.")


def ij_task(id, level, instruction, truth, start, demo, out):
    return task(id, level, instruction, "imagej_filtered", {"artifact": "image", **truth}, start, demo,
                tags=["imagej"], artifacts={"image": out}, knowledge=IJ_KNOW, **LIMITS[level])


imagej_tasks = [
    ij_task("imagej-smooth", "L1",
            "cells.tif is open in ImageJ. Smooth it once (Process > Smooth, the 3x3 mean) and save the result as "
            "PNG to /root/work/cells_smooth3.png.",
            {"format": "PNG", "size": [256, 256], "source": CELLS, "ops": [["smooth"]], "tolerance": 0.3},
            imagej_start(), [*ij_command("Smooth"), *ij_save_as("PNG...", f"{WORK}/cells_smooth3.png")],
            f"{WORK}/cells_smooth3.png"),
    ij_task("imagej-sharpen", "L1",
            "cells.tif is open in ImageJ. Sharpen it once (Process > Sharpen) and save the result as TIFF to "
            "/root/work/cells_sharp.tif.",
            {"format": "TIFF", "size": [256, 256], "source": CELLS, "ops": [["sharpen"]], "tolerance": 0.5},
            imagej_start(), [*ij_command("Sharpen"), *ij_save_as("Tiff...", f"{WORK}/cells_sharp.tif")],
            f"{WORK}/cells_sharp.tif"),
    ij_task("imagej-maximum", "L1",
            "cells.tif is open in ImageJ. Apply a maximum filter of radius 2 pixels (Process > Filters > Maximum), "
            "which grows the bright cells, and save the result as PNG to /root/work/cells_max2.png.",
            {"format": "PNG", "size": [256, 256], "source": CELLS, "ops": [["maximum", 2]], "tolerance": 0.3},
            imagej_start(), [*ij_command("Maximum..."), T("2\n"), W(2),
                             *ij_save_as("PNG...", f"{WORK}/cells_max2.png")],
            f"{WORK}/cells_max2.png"),
    ij_task("imagej-scale-half", "L1",
            "cells.tif (256x256) is open in ImageJ. Scale it to half its size, 128x128 pixels (Image > Scale, X "
            "and Y scale 0.5, averaging when downsizing, in a new window), and save the small picture as PNG to "
            "/root/work/cells_half.png.",
            {"format": "PNG", "size": [128, 128], "source": CELLS, "ops": [["shrink", 2]], "tolerance": 3},
            imagej_start(), [*ij_command("Scale..."), T("0.5\n"), W(3),
                             *ij_save_as("PNG...", f"{WORK}/cells_half.png")],
            f"{WORK}/cells_half.png"),
    # --- L2 ---
    ij_task("imagej-stack-max-sharpen", "L2",
            "stack.tif is open in ImageJ: a stack of slices with one bright spot each. Make its maximum intensity "
            "projection (Image > Stacks > Z Project, Max Intensity), sharpen the projection (Process > Sharpen) "
            "and save it as PNG to /root/work/spots_sharp.png.",
            {"format": "PNG", "size": [STACK_SIZE, STACK_SIZE], "source": STACK,
             "ops": [["zproject", "max"], ["sharpen"]], "tolerance": 0.5},
            stack_start(), [*Z_PROJECT, *ij_command("Sharpen"), *ij_save_as("PNG...", f"{WORK}/spots_sharp.png")],
            f"{WORK}/spots_sharp.png"),
    ij_task("imagej-16bit-smooth-max", "L2",
            "cells16.tif (16-bit) is open in ImageJ. Convert it to 8-bit (Image > Type > 8-bit), smooth it once "
            "(Process > Smooth), apply a maximum filter of radius 1 (Process > Filters > Maximum), and save the "
            "result as TIFF to /root/work/cells16_smooth_max.tif.",
            {"format": "TIFF", "mode": "L", "source": CELLS16, "ops": [["ij8bit"], ["smooth"], ["maximum", 1]],
             "tolerance": 0.5},
            imagej_start("cells16.tif"),
            [*ij_command("8-bit"), *ij_command("Smooth"), *ij_command("Maximum..."), T("1\n"), W(2),
             *ij_save_as("Tiff...", f"{WORK}/cells16_smooth_max.tif")],
            f"{WORK}/cells16_smooth_max.tif"),
    ij_task("imagej-flip-min-subtract", "L2",
            "cells.tif is open in ImageJ. Flip it vertically (Image > Transform > Flip Vertically), apply a minimum "
            "filter of radius 1 (Process > Filters > Minimum), subtract 10 from every pixel (Process > Math > "
            "Subtract) and save the result as PNG to /root/work/cells_flip_min.png.",
            {"format": "PNG", "size": [256, 256], "source": CELLS, "ops": [["flip_v"], ["minimum", 1], ["subtract", 10]],
             "tolerance": 0.3},
            imagej_start(),
            [*ij_command("Flip Vertically"), *ij_command("Minimum..."), T("1\n"), W(2), *ij_command("Subtract..."),
             T("10\n"), W(2), *ij_save_as("PNG...", f"{WORK}/cells_flip_min.png")],
            f"{WORK}/cells_flip_min.png"),
]

tasks = [*qgis_tasks, *imagej_tasks]

if __name__ == "__main__":
    write("science_round3", tasks)
