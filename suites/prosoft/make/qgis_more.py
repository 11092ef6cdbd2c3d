"""Writes tasks/qgis_more.json: more QGIS tasks (QGIS stands in for ArcGIS), one core function of the program per L1
task (buffer, centroids, clip, attribute join, dissolve, a layer filter, a categorized style, a map exported as a
georeferenced picture) and four L2 tasks that chain them. Run ``python suites/prosoft/make/qgis_more.py`` from
the repository root.

Start files: ``fixtures/prosoft/engineering/parcels.geojson`` (read only) and ``fixtures/prosoft/science_more/``
(site.geojson, owners.csv, QGIS3.ini; its ``make_fixtures.py``). Evaluators: ``checks/qgis_more.py`` (gis_layer,
qgs_layer, map_image). The expected numbers are computed from the fixtures' constants: buffered areas by the
geometry of a rectangle with rounded corners (QGIS's default 5 segments per quarter circle), clipped and dissolved
areas by rectangle intersections.

Demonstrations use QGIS's own interface: processing algorithms are found with the locator bar (Ctrl+K, the
``a`` prefix searches algorithms) and filled in their dialog (the output file typed in its field), layers are
saved with Layer > Save As, project files with Project > Save As.
"""
import importlib.util
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import GONE, WIN, C, K, P, T, W, task, write  # noqa: E402
from engineering import MAXIMIZE, PARCEL_FIELDS, PARKS, QGIS_CARD, QGIS_INI, SELECT_PARKS, save_as  # noqa: E402

_spec = importlib.util.spec_from_file_location(  # science_more's make_fixtures.py, under a name of its own
    "science_fixtures", Path(__file__).resolve().parents[3] / "fixtures" / "prosoft" / "science_more" / "make_fixtures.py")
SCIENCE = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(SCIENCE)

WORK = "/root/work"
ENG, SCI = "fixtures/prosoft/engineering", "fixtures/prosoft/science_more"
PARCEL_IDS = [p[0] for p in SCIENCE.PARCELS]
LANDUSE = {str(p[0]): p[2] for p in SCIENCE.PARCELS}
PARCELS_EXTENT = [500000, 5000000, 500340, 5000270]


def qgis(artifacts, *layers):
    """QGIS with parcels.geojson (and ``layers``, science_more start files) open, maximised; parcels is the
    active layer."""
    files = [{"src": f"{ENG}/parcels.geojson", "dest": f"{WORK}/parcels.geojson"},
             {"src": f"{SCI}/QGIS3.ini", "dest": QGIS_INI},
             *({"src": f"{SCI}/{name}", "dest": f"{WORK}/{name}"} for name in layers),
             *({"src": f"{SCI}/{name}t", "dest": f"{WORK}/{name}t"} for name in layers if name.endswith(".csv"))]
    return {"start_files": files,
            # the last file opened is the active layer, which a processing dialog takes as its input
            "start_command": ["qgis", "--nologo", "--noversioncheck", *(f"{WORK}/{name}" for name in layers),
                              f"{WORK}/parcels.geojson"],
            "window": "QGIS", "window_timeout_s": 240, "start_commands": [MAXIMIZE], "artifacts": artifacts}


def buffered_area(pid, distance, segments=5):
    """Area of parcel ``pid``'s rectangle buffered by ``distance`` with round corners drawn as ``segments``
    chords per quarter circle (QGIS's default: 5)."""
    x0, y0, x1, y1 = SCIENCE.rectangle(pid)
    w, h = x1 - x0, y1 - y0
    n = 4 * segments
    return w * h + 2 * distance * (w + h) + n / 2 * distance ** 2 * math.sin(2 * math.pi / n)


def centroid(pid):
    x0, y0, x1, y1 = SCIENCE.rectangle(pid)
    return [(x0 + x1) / 2, (y0 + y1) / 2]


CLIP = SCIENCE.clip_areas()
DISSOLVED = SCIENCE.dissolved_areas()
OWNER = {str(pid): owner for pid, owner, _ in SCIENCE.OWNERS}
CITY = [pid for pid, owner, _ in SCIENCE.OWNERS if owner == "City"]
CLIP_BY_USE = {}
for _pid, _area in CLIP.items():
    CLIP_BY_USE[LANDUSE[str(_pid)]] = CLIP_BY_USE.get(LANDUSE[str(_pid)], 0.0) + _area


# --- demonstration pieces -------------------------------------------------------------------------------------

def algorithm(name, title=None):
    """The locator bar (Ctrl+K): ``a <name>`` lists processing algorithms, Enter opens the first one's dialog
    (its place and height come from QGIS3.ini, so its fields are where the clicks below expect them)."""
    return [K("ctrl", "k"), W(1), K("ctrl", "a"), T(f"a {name}"), W(2.5), P("enter"), WIN(f"^{title or name}$", 60),
            W(2)]


def pick_layer(x, y, name):
    """Open a layer list of the dialog and pick ``name`` by typing it (the list's keyboard search), Enter."""
    return [C(x, y), W(1.5), T(name), W(1), P("enter"), W(1)]


def output(y, path=None):
    """The output field at height ``y`` of the dialog: a typed path writes a file (else a temporary layer)."""
    return [C(476, y), W(0.5), T(path), W(1)] if path else []


RUN = [C(750, 762), W(5)]  # Run; the dialog turns to its log
CLOSE = [C(836, 762), W(2)]


def value(x, y, number):
    return [{"type": "triple_click", "target": {"x": x, "y": y}}, W(0.5), K("ctrl", "a"), T(str(number)), W(0.5)]


def buffer(distance, path=None, selected=False, dissolve=False):
    return [*algorithm("buffer", "Buffer"), *([C(310, 150), W(0.5)] if selected else []), *value(415, 204, distance),
            *([C(310, 452), W(0.5)] if dissolve else []), *output(505, path), *RUN]


def clip(path=None):
    return [*algorithm("clip", "Clip"), *pick_layer(440, 203, "site"), *output(287, path), *RUN]


def dissolve(path=None):
    """Dissolve by landuse: the field list (its ... button) lists id, name, landuse; ticked, then OK."""
    return [*algorithm("dissolve", "Dissolve"), C(670, 203), W(1.5), C(319, 161), W(0.5), C(612, 223), W(1.5),
            *output(257, path), *RUN]


def join_owners(path=None):
    return [*algorithm("join attributes by field value", "Join attributes by field value"),
            *pick_layer(475, 257, "owners"), *output(586, path), *RUN]


def layer_filter(expression):
    """Layer > Filter (Ctrl+F) on the active layer: the expression typed into the Query Builder, OK."""
    return [K("ctrl", "f"), WIN("^Query Builder$"), W(1.5), C(630, 580), T(expression), W(1), C(426, 703),
            GONE("^Query Builder$"), W(1.5)]


# Layer Properties (a double click on the layer), its Symbology page: the renderer list, Categorized, the Value
# field typed, Classify, OK
CATEGORIZED = [{"type": "double_click", "target": {"x": 92, "y": 410}}, WIN("^Layer Properties"), W(2),
               C(705, 35), W(1.5), C(448, 63), W(2), C(720, 66), W(0.5), T("landuse"), P("tab"), W(1), C(411, 679),
               W(2), C(741, 734), GONE("^Layer Properties"), W(1.5)]
RENAME = [C(92, 410), W(0.5), P("F2"), W(0.5), K("ctrl", "a")]


def save_project(path):
    return [K("ctrl", "shift", "s"), W(3), T(path + "\n"), W(3)]


# Project > Import/Export > Export Map to Image: the dialog's Save, then the file name
MAP_IMAGE = [C(32, 29), W(1.5), C(78, 361), W(1.5), C(444, 361), WIN("^Save Map as Image$"), W(2), C(706, 660),
             WIN("^Choose a file name"), W(1.5)]

SELECT_CITY = [K("ctrl", "F3"), W(3), C(360, 330), T("\"owner\" = 'City'"), W(1), C(880, 627), W(1.5), P("escape"),
               W(1.5)]


KNOW = [*QGIS_CARD,
        "Processing algorithms (Processing > Toolbox, or type 'a ' and the name in the locator bar, Ctrl+K): Buffer, "
        "Clip, Dissolve, Centroids (Vector > Geoprocessing Tools / Geometry Tools), Join attributes by field value; "
        "each writes its output to a file when a path is typed in the output field (the extension picks the "
        "format: .geojson, .gpkg).",
        "Layer > Filter... (Ctrl+F) sets a provider filter such as \"landuse\" = 'residential'; Layer Properties > "
        "Symbology: Categorized on a field, Classify; Project > Import/Export > Export Map to Image writes a "
        "picture and its world file (.pgw); Project > Save As (Ctrl+Shift+S) writes .qgz."]

tasks = [
    task("qgis-buffer", "L1",
         "parcels.geojson (UTM zone 33N, metres) is open in QGIS. Buffer the parcels by 25 metres (Vector > "
         "Geoprocessing Tools > Buffer) and save the buffered layer as GeoJSON to "
         "/root/work/parcels_buffer25.geojson.",
         "gis_layer", {"artifact": "layer", "format": "GeoJSON", "count": 8, "ids": {"field": "id", "values": PARCEL_IDS},
                       "areas": {str(i): round(buffered_area(i, 25), 1) for i in PARCEL_IDS}, "area_tolerance": 0.005,
                       "geometry": "Polygon"},
         qgis({"layer": f"{WORK}/parcels_buffer25.geojson"}), buffer(25, f"{WORK}/parcels_buffer25.geojson"), tags=["qgis", "gis"], knowledge=KNOW),
    task("qgis-centroids", "L1",
         "parcels.geojson is open in QGIS. Compute the centroid of each parcel (Vector > Geometry Tools > "
         "Centroids) and save the points as a GeoPackage to /root/work/centroids.gpkg.",
         "gis_layer", {"artifact": "layer", "format": "GeoPackage", "count": 8, "geometry": "Point",
                       "fields": PARCEL_FIELDS, "points": {str(i): centroid(i) for i in PARCEL_IDS}},
         qgis({"layer": f"{WORK}/centroids.gpkg"}),
         [*algorithm("centroids", "Centroids"), *output(235, f"{WORK}/centroids.gpkg"), *RUN], tags=["qgis", "gis"]),
    task("qgis-clip", "L1",
         "parcels.geojson and site.geojson (the site boundary) are open in QGIS. Clip the parcels to the site "
         "boundary (Vector > Geoprocessing Tools > Clip, overlay layer site) and save the result as GeoJSON to "
         "/root/work/parcels_site.geojson.",
         "gis_layer", {"artifact": "layer", "format": "GeoJSON", "count": len(CLIP),
                       "ids": {"field": "id", "values": sorted(CLIP)}, "areas": {str(i): a for i, a in CLIP.items()},
                       "fields": PARCEL_FIELDS},
         qgis({"layer": f"{WORK}/parcels_site.geojson"}, "site.geojson"), clip(f"{WORK}/parcels_site.geojson"), tags=["qgis", "gis"], knowledge=KNOW),
    task("qgis-join-owners", "L1",
         "parcels.geojson and the table owners.csv (id, owner, assessed) are open in QGIS. Join the owners to the "
         "parcels by their id field (Processing: Join attributes by field value) and save the joined layer as "
         "GeoJSON to /root/work/parcels_owners.geojson.",
         "gis_layer", {"artifact": "layer", "format": "GeoJSON", "count": 8, "fields": [*PARCEL_FIELDS, "owner", "assessed"],
                       "values": {"owner": OWNER}},
         qgis({"layer": f"{WORK}/parcels_owners.geojson"}, "owners.csv"),
         join_owners(f"{WORK}/parcels_owners.geojson"), tags=["qgis", "gis"], knowledge=KNOW),
    task("qgis-dissolve", "L1",
         "parcels.geojson is open in QGIS. Dissolve the parcels by their landuse field (Vector > Geoprocessing "
         "Tools > Dissolve, one feature per landuse) and save the result as a GeoPackage to "
         "/root/work/landuse.gpkg.",
         "gis_layer", {"artifact": "layer", "format": "GeoPackage", "count": 3, "id_field": "landuse",
                       "ids": {"field": "landuse", "values": sorted(DISSOLVED)}, "areas": DISSOLVED},
         qgis({"layer": f"{WORK}/landuse.gpkg"}), dissolve(f"{WORK}/landuse.gpkg"), tags=["qgis", "gis"]),
    task("qgis-filter-residential", "L1",
         "parcels.geojson is open in QGIS. Filter the parcels layer so that it shows only the residential parcels "
         "(Layer > Filter..., landuse = 'residential') and save the project as /root/work/residential.qgz.",
         "qgs_layer", {"artifact": "project", "layer": "parcels.geojson",
                       "subset": {"table": "engineering/parcels.geojson", "ids": [1, 2, 6]}},
         qgis({"project": f"{WORK}/residential.qgz"}),
         [*layer_filter("\"landuse\" = 'residential'"), *save_project(f"{WORK}/residential.qgz")], tags=["qgis", "gis"], knowledge=KNOW),
    task("qgis-categorized-style", "L1",
         "parcels.geojson is open in QGIS. Style the parcels layer by its landuse field with a Categorized "
         "renderer, one category per landuse (Layer Properties > Symbology, Classify), and save the project as "
         "/root/work/landuse_style.qgz.",
         "qgs_layer", {"artifact": "project", "layer": "parcels.geojson",
                       "renderer": {"type": "categorizedSymbol", "attr": "landuse",
                                    "categories": sorted(DISSOLVED)}},
         qgis({"project": f"{WORK}/landuse_style.qgz"}), [*CATEGORIZED, *save_project(f"{WORK}/landuse_style.qgz")], tags=["qgis", "gis"], knowledge=KNOW),
    task("qgis-map-image", "L1",
         "parcels.geojson is open in QGIS. Export the map view as a PNG picture with its world file (Project > "
         "Import/Export > Export Map to Image, georeference on) to /root/work/map.png.",
         "map_image", {"artifact": "image", "world": "world", "format": "PNG", "covers": PARCELS_EXTENT,
                       "max_extent": 3000},
         qgis({"image": f"{WORK}/map.png", "world": f"{WORK}/map.pgw"}),
         [*MAP_IMAGE, T(f"{WORK}/map.png\n"), W(4)], tags=["qgis", "gis"], knowledge=KNOW),
    # --- L2 ---
    task("qgis-parks-buffer-dissolved", "L2",
         "parcels.geojson is open in QGIS. Buffer only the park parcels (landuse = 'park') by 15 metres, with the "
         "buffers dissolved into a single feature, and save it as a GeoPackage to /root/work/park_zone.gpkg.",
         "gis_layer", {"artifact": "layer", "format": "GeoPackage", "count": 1,
                       "total_area": round(sum(buffered_area(i, 15) for i in PARKS), 1),
                       "area_tolerance": 0.002},
         qgis({"layer": f"{WORK}/park_zone.gpkg"}),
         [*SELECT_PARKS, *buffer(15, f"{WORK}/park_zone.gpkg", selected=True, dissolve=True)], tags=["qgis", "gis"], knowledge=KNOW),
    task("qgis-clip-dissolve", "L2",
         "parcels.geojson and site.geojson (the site boundary) are open in QGIS. Clip the parcels to the site, "
         "then dissolve the clipped parcels by landuse (one feature per landuse), and save the result as GeoJSON "
         "to /root/work/site_landuse.geojson.",
         "gis_layer", {"artifact": "layer", "format": "GeoJSON", "count": len(CLIP_BY_USE), "id_field": "landuse",
                       "ids": {"field": "landuse", "values": sorted(CLIP_BY_USE)}, "areas": CLIP_BY_USE},
         qgis({"layer": f"{WORK}/site_landuse.geojson"}, "site.geojson"),
         [*clip(), *CLOSE, *dissolve(f"{WORK}/site_landuse.geojson")], tags=["qgis", "gis"], knowledge=KNOW),
    task("qgis-city-parcels", "L2",
         "parcels.geojson and the table owners.csv (id, owner, assessed) are open in QGIS. Join the owners to the "
         "parcels by id, select the parcels owned by 'City' in the joined layer, and save only those, with their "
         "owner and assessed fields, as GeoJSON to /root/work/city_parcels.geojson.",
         "gis_layer", {"artifact": "layer", "format": "GeoJSON", "count": len(CITY),
                       "ids": {"field": "id", "values": CITY}, "fields": [*PARCEL_FIELDS, "owner", "assessed"],
                       "values": {"owner": {str(i): "City" for i in CITY}}},
         qgis({"layer": f"{WORK}/city_parcels.geojson"}, "owners.csv"),
         [*join_owners(), *CLOSE, *SELECT_CITY, *save_as("GeoJSON", f"{WORK}/city_parcels.geojson", selected=True)], tags=["qgis", "gis"], knowledge=KNOW),
    task("qgis-nonresidential-project", "L2",
         "parcels.geojson is open in QGIS. Filter the parcels layer to everything but the residential parcels, "
         "rename the layer to 'Non-residential', style it Categorized by landuse, and save the project as "
         "/root/work/nonresidential.qgz.",
         "qgs_layer", {"artifact": "project", "layer": "parcels.geojson", "name": "Non-residential",
                       "subset": {"table": "engineering/parcels.geojson", "ids": [3, 4, 5, 7, 8]},
                       "renderer": {"type": "categorizedSymbol", "attr": "landuse", "categories": ["commercial", "park"]}},
         qgis({"project": f"{WORK}/nonresidential.qgz"}),
         [*layer_filter("\"landuse\" <> 'residential'"), *RENAME, T("Non-residential\n"), W(1), *CATEGORIZED,
          *save_project(f"{WORK}/nonresidential.qgz")], tags=["qgis", "gis"], knowledge=KNOW),
]
for _task in tasks:  # QGIS may still be drawing the map when the screen first looks settled
    _task["demonstration"]["actions"].insert(0, W(3))

if __name__ == "__main__":
    write("qgis_more", tasks)
