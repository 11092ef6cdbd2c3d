"""Writes tasks/pipelines_more.json: L3 pipelines beside the first 16, four of them across THREE programs, each
step working on what the step before produced and every step's artifact checked:

- ``pipe-ngspice-r-writer``: ngspice simulates the RC step response and writes it (wrdata); R reads that file and
  computes the time constant; Writer reports it.
- ``pipe-qgis-r-writer``: QGIS exports the parcels' attributes to CSV; R counts the parcels per land use from that
  CSV; Writer reports the counts.
- ``pipe-r-calc-impress``: R totals the sales per region into a CSV; Calc takes those totals with a SUM formula;
  the table goes onto a new Impress slide.
- ``pipe-librecad-inkscape-impress``: LibreCAD adds a layer and a table to the plan, saves it and exports it as
  plain SVG (a group per layer); Inkscape imports that SVG into an A4 sheet and titles it; Impress shows the sheet
  on a new slide. (Inkscape's own DXF import needs its Python extensions, which the image cannot run.)
- ``pipe-ngspice-calc``: ngspice's operating point of the divider is recorded in Calc with the current it implies.

Windows: the consoles are xterms placed side by side at fixed geometries (ngspice top left, R below it) so that a
click reaches each; the office program is started first and maximised behind them. Evaluators are the existing
kinds (``spice_wave``, ``spice_value``, ``r_output``, ``csv_table``, ``writer``, ``calc``, ``impress``,
``dxf_more``, and ``svg_layers`` and ``impress_svg_layers`` of ``checks/pipelines_more.py``). Run from the
repository root::

    python suites/prosoft/make/pipelines_more.py
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import SAVED, WRITER_START, WIN, C, K, P, T, W, task, write  # noqa: E402
from librecad_more import fresh_import  # noqa: E402

office = fresh_import("office")
engineering = fresh_import("engineering")
circuit = fresh_import("circuit")
librecad = fresh_import("librecad")

WORK = "/root/work"
REPORT = office.REPORT
KNOW = ["Pipelines: finish and save in each program before using its result in the next; a click on a window (or "
        "Alt+Tab) brings it to the front. The R console and ngspice's console take typed commands.",
        "R: read.table(FILE) reads whitespace-separated columns (V1, V2, ...), read.csv(FILE) a CSV; approx(x, y, "
        "xout = v)$y interpolates; table(x) counts values; write(x, FILE) writes a number; write.csv(d, FILE, "
        "row.names = FALSE).",
        "ngspice: 'tran TSTEP TSTOP' then 'wrdata FILE v(out)' writes time and v(out) as two columns; 'op' then "
        "'print v(out) > FILE' writes the operating point."]


def xterm(title, program_argv, geometry):
    return ["xterm", "-T", title, "-geometry", geometry, "-e", *program_argv]


NGSPICE_GEOMETRY, R_GEOMETRY = "96x18+0+0", "96x18+0+300"
NGSPICE_AT, R_AT, OFFICE_AT = C(300, 120), C(300, 420), C(1000, 640)  # a click on each window's visible part


def ngspice_cmd(netlist):
    return {"command": xterm("ngspice", ["ngspice", f"{WORK}/{netlist}"], NGSPICE_GEOMETRY), "window": "^ngspice$",
            "window_timeout_s": 60}


R_CONSOLE = {"command": xterm("R console", ["R", "--quiet", "--no-save"], R_GEOMETRY), "window": "^R console$",
             "window_timeout_s": 60}
WRITER_CMD = {"command": WRITER_START["start_command"], "window": WRITER_START["window"], "window_timeout_s": 180}
REPORT_FILE = WRITER_START["start_files"][0]


def typed(*lines):
    out = [W(1)]
    for line in lines:
        out += [T(line + "\n"), W(1.5)]
    return out


# --- ngspice -> R -> Writer -----------------------------------------------------------------------------------------
TAU_MS = 1.0  # R1 1k, C1 1u
STEP_CHECK = {"template": "spice_wave", "artifact": "step", "x_range": [0, 5e-3], "points": circuit.STEP_POINTS,
              "tolerance": 0.02}
ngspice_r_writer = task(
    "pipe-ngspice-r-writer", "L3",
    "Three programs are open: ngspice's console with rc.cir (an RC low-pass driven by a 0 to 5 V step), an R "
    "console, and report.docx in LibreOffice Writer. In ngspice, run a transient analysis from 0 to 5 ms with a "
    "10 us step and write v(out) over time to /root/work/step.txt (wrdata). In R, read that file and compute the "
    "time constant: the time at which v(out) first reaches 63.2 % of 5 V (5 * (1 - exp(-1)) V, interpolating "
    "between samples); write it in milliseconds, rounded to two decimals, to /root/work/tau.txt. In Writer, add "
    "the final paragraph 'Measured time constant: X ms' (X the value R computed) and save the report (keep the "
    "Word format).",
    "pipeline",
    {"steps": [STEP_CHECK,
               {"template": "r_output", "outputs": {"tau": {"number": TAU_MS, "tolerance": 0.02}}},
               {"template": "writer", "last_paragraphs": [f"Measured time constant: {TAU_MS:.2f} ms"],
                "keeps": REPORT}]},
    {"start_files": [REPORT_FILE, {"src": "fixtures/prosoft/circuit/rc.cir", "dest": f"{WORK}/rc.cir"}],
     "start_commands": [WRITER_CMD, R_CONSOLE, ngspice_cmd("rc.cir")],
     "artifacts": {"step": f"{WORK}/step.txt", "tau": f"{WORK}/tau.txt", "document": f"{WORK}/report.docx"}},
    [NGSPICE_AT, *typed("tran 10u 5m", f"wrdata {WORK}/step.txt v(out)"), W(1), R_AT,
     *typed(f'd <- read.table("{WORK}/step.txt")',
            'tau <- round(1000 * approx(d$V2, d$V1, xout = 5 * (1 - exp(-1)), ties = "ordered")$y, 2)',
            f'write(tau, "{WORK}/tau.txt")'), OFFICE_AT, W(1), K("ctrl", "end"), P("enter"),
     T(f"Measured time constant: {TAU_MS:.2f} ms"), K("ctrl", "s"), W(3)],
    tags=["ngspice", "r", "writer", "pipeline"], apps=["ngspice", "r", "writer"], knowledge=KNOW, max_steps=80,
    time_limit_s=1200)

# --- QGIS -> R -> Writer ----------------------------------------------------------------------------------------
COUNTS = {"commercial": 2, "park": 3, "residential": 3}
SITE_SENTENCE = "The site has 3 residential, 3 park and 2 commercial parcels."
ICONIFY = C(1238, 9)  # the title bar's iconify button of a maximised window (openbox)
qgis = engineering.qgis({"table": f"{WORK}/parcels.csv"})
qgis_r_writer = task(
    "pipe-qgis-r-writer", "L3",
    "Three programs are open: QGIS with parcels.geojson, an R console, and report.docx in LibreOffice Writer. In "
    "QGIS, export the parcels layer's attributes to the CSV file /root/work/parcels.csv (Layer > Save As..., "
    "format Comma Separated Value). In R, read that CSV and write the number of parcels per land use to "
    "/root/work/landuse_counts.csv with the columns landuse and parcels (no row names). In Writer, add the final "
    "paragraph 'The site has N residential, N park and N commercial parcels.' with the counts R found, and save "
    "the report (keep the Word format).",
    "pipeline",
    {"steps": [{"template": "csv_table", "artifact": "table", "count": 8, "columns": engineering.PARCEL_FIELDS,
                "values": {"landuse": engineering.LANDUSE}},
               {"template": "r_output", "outputs": {"counts": {"csv": COUNTS, "key": "landuse", "value": "parcels",
                                                              "row_names": False}}},
               {"template": "writer", "last_paragraphs": [SITE_SENTENCE], "keeps": REPORT}]},
    {"start_files": [REPORT_FILE, *qgis["start_files"]],
     "start_commands": [WRITER_CMD, R_CONSOLE, {"command": qgis["start_command"], "window": qgis["window"],
                                                "window_timeout_s": qgis["window_timeout_s"]}, *qgis["start_commands"]],
     "artifacts": {"table": f"{WORK}/parcels.csv", "counts": f"{WORK}/landuse_counts.csv",
                   "document": f"{WORK}/report.docx"}},
    [W(3), *engineering.save_as("Comma", f"{WORK}/parcels.csv"), W(1), ICONIFY, W(2), R_AT,
     *typed(f'd <- read.csv("{WORK}/parcels.csv")', 't <- as.data.frame(table(d$landuse))',
            'names(t) <- c("landuse", "parcels")', f'write.csv(t, "{WORK}/landuse_counts.csv", row.names = FALSE)'),
     OFFICE_AT, W(1), K("ctrl", "end"), P("enter"), T(SITE_SENTENCE), K("ctrl", "s"), W(3)],
    tags=["qgis", "r", "writer", "pipeline"], apps=["qgis", "r", "writer"],
    knowledge=[*KNOW, *engineering.QGIS_CARD[:1]], max_steps=80, time_limit_s=1200)

# --- R -> Calc -> Impress ---------------------------------------------------------------------------------------
TOTALS = {"North": 615.75, "South": 390, "East": 249.5, "West": 265.75}
deck = office.impress_start()
REGIONS = "regions.xlsx"
r_calc_impress = task(
    "pipe-r-calc-impress", "L3",
    "Three programs are open: an R console, regions.xlsx in LibreOffice Calc, and deck.odp in LibreOffice Impress. "
    "In R, total the amount per region of /root/work/sales.csv and write it to /root/work/region_totals.csv "
    "(columns region and total, no row names), then quit R. In Calc, enter those totals under the headers Region "
    "and Sales (rows 2 to 5, in the order East, North, South, West), put 'Total' in A6 and a formula summing "
    "B2:B5 in B6, and save the workbook (keep the format). Then copy the table A1:B6 onto a new last slide of "
    "deck.odp titled 'Sales by region' and save the presentation.",
    "pipeline",
    {"steps": [{"template": "r_output", "outputs": {"totals": {"csv": TOTALS, "key": "region", "value": "total",
                                                              "row_names": False}}},
               {"template": "calc", "artifact": "workbook",
                "values": {"A2": "East", "B2": 249.5, "A3": "North", "B3": 615.75, "A4": "South", "B4": 390,
                           "A5": "West", "B5": 265.75, "A6": "Total", "B6": 1521},
                "formulas": {"B6": "SUM(B2:B5)"}, "formula_match": "equivalent",
                "unchanged_from": "drafting_more/regions.xlsx"},
               {"template": "impress", "slides": 4, "titles": [*office.TITLES, "Sales by region"],
                "object_text": {"4": ["Region", "Sales", "North", "615.75", "Total", "1521"]}}]},
    {"start_files": [{"src": "fixtures/prosoft/sales.csv", "dest": f"{WORK}/sales.csv"},
                     {"src": f"fixtures/prosoft/drafting_more/{REGIONS}", "dest": f"{WORK}/{REGIONS}"},
                     *deck["start_files"]],
     "start_commands": [{"command": deck["start_command"], "window": deck["window"], "window_timeout_s": 180},
                        {"command": ["soffice", "--norestore", "--calc", f"{WORK}/{REGIONS}"],
                         "window": "regions\\.xlsx", "window_timeout_s": 180}, R_CONSOLE],
     "artifacts": {"totals": f"{WORK}/region_totals.csv", "workbook": f"{WORK}/{REGIONS}", **deck["artifacts"]}},
    [W(3), R_AT, *typed('d <- read.csv("/root/work/sales.csv")', 't <- aggregate(amount ~ region, data = d, FUN = sum)',
                        'names(t) <- c("region", "total")', f'write.csv(t, "{WORK}/region_totals.csv", row.names = FALSE)',
                        'q("no")'), W(2), OFFICE_AT, W(1), K("ctrl", "home"), P("down"),
     T("East\t249.5\nNorth\t615.75\nSouth\t390\nWest\t265.75\nTotal\t=SUM(B2:B5)\n"), K("ctrl", "s"), W(3),
     K("ctrl", "home"), K("ctrl", "shift", "end"), K("ctrl", "c"), W(1), K("alt", "tab"), W(3),
     *office.new_slide_after(3, "Sales by region"), K("ctrl", "v"), W(3), *office.DONE_TEXT, K("ctrl", "s"), W(6)],
    tags=["r", "calc", "impress", "pipeline"], apps=["r", "calc", "impress"], knowledge=[*KNOW, office.KNOW_PIPE],
    max_steps=80, time_limit_s=1200)

# --- LibreCAD -> Inkscape -> Impress ----------------------------------------------------------------------------
plan = librecad.start()
TABLE = {"center": [100, 60], "radius": 15, "layer": "FURNITURE"}
PLAN_SVG, SHEET = f"{WORK}/plan.svg", f"{WORK}/sheet.svg"
INKSCAPE_CMD = {"command": ["inkscape", SHEET], "window": "sheet\\.svg", "window_timeout_s": 240}
# File > Export > Export as CAM/plain SVG...: its options dialog (Save), then the file dialog
EXPORT_SVG = [C(36, 29), W(1.5), C(71, 242), W(1.5), C(449, 242), WIN("^Export as CAM/plain SVG$", 20), W(1),
              C(741, 606), WIN("^Export as$", 20), W(1), T(PLAN_SVG + "\n"), SAVED(PLAN_SVG)]
# Inkscape: File > Import (Ctrl+I) of the SVG, its SVG Input dialog confirmed; the text tool, a click, the title
IMPORT_PLAN = [C(1000, 650), W(1), K("ctrl", "i"), W(3), K("ctrl", "l"), T(PLAN_SVG + "\n"),
               WIN("^SVG Input$", 30), W(1), P("enter"), W(3), P("escape"), W(1), P("t"), W(1), C(700, 200), W(1),
               T("Ground floor"), P("escape"), W(1), K("ctrl", "s"), SAVED(SHEET)]
librecad_inkscape_impress = task(
    "pipe-librecad-inkscape-impress", "L3",
    "Three programs are open: plan.dxf in LibreCAD, sheet.svg (an empty A4 page) in Inkscape, and deck.odp in "
    "LibreOffice Impress. In LibreCAD, add a layer FURNITURE (red), draw on it a round table (a circle with centre "
    "(100, 60) and radius 15), save the drawing, and export it with File > Export > Export as CAM/plain SVG to "
    "/root/work/plan.svg. In Inkscape, import /root/work/plan.svg into sheet.svg (File > Import), add the text "
    "'Ground floor' as its title and save sheet.svg. In Impress, add a new last slide titled 'Floor plan' showing "
    "/root/work/sheet.svg (Insert > Image) and save the presentation.",
    "pipeline",
    {"steps": [{"template": "dxf_more", "layers": {"FURNITURE": {"color": 1}}, "circles": [TABLE],
                "keep": librecad.keep_except()},
               {"template": "svg_layers", "artifact": "plan_svg", "layers": {"FURNITURE": 1, "WALLS": 4, "COLUMNS": 1}},
               {"template": "svg_layers", "artifact": "sheet", "layers": {"FURNITURE": 1, "WALLS": 4, "COLUMNS": 1},
                "texts": ["Ground floor"]},
               {"template": "impress_svg_layers", "slide": 4, "layers": ["FURNITURE", "WALLS", "COLUMNS"],
                "texts": ["Ground floor"], "titles": [*office.TITLES, "Floor plan"]}]},
    {"start_files": [*plan["start_files"], {"src": "fixtures/prosoft/drafting_more/sheet.svg", "dest": SHEET},
                     *deck["start_files"]],
     "start_commands": [{"command": deck["start_command"], "window": deck["window"], "window_timeout_s": 180},
                        INKSCAPE_CMD, {"command": plan["start_command"], "window": plan["window"],
                                       "window_timeout_s": plan["window_timeout_s"]}, *plan["start_commands"]],
     "artifacts": {"drawing": plan["artifacts"]["drawing"], "plan_svg": PLAN_SVG, "sheet": SHEET,
                   **deck["artifacts"]}},
    [*librecad.NEW_RED_LAYER, *librecad.cmd("circle", "100,60", "115,60"), *librecad.ESC, K("ctrl", "s"), W(3),
     *EXPORT_SVG, W(1), ICONIFY, W(2), *IMPORT_PLAN, W(1), ICONIFY, W(2), *office.new_slide_after(3, "Floor plan"),
     *office.INSERT_IMAGE, *office.file_dialog(SHEET), *office.DONE_TEXT, K("ctrl", "s"), W(6)],
    tags=["librecad", "inkscape", "impress", "pipeline"], apps=["librecad", "inkscape", "impress"],
    knowledge=[*KNOW[:1], *librecad.CARD[1:], "LibreCAD's File > Export > Export as CAM/plain SVG writes the drawing "
               "as SVG, one group per layer. Inkscape's File > Import (Ctrl+I) places another SVG into the open "
               "one; the text tool (T) writes text where you click; Ctrl+S saves."], max_steps=150, time_limit_s=1500)

# --- ngspice -> Calc ------------------------------------------------------------------------------------------------
VOUT = round(circuit.divider_out(), 4)
ngspice_calc = task(
    "pipe-ngspice-calc", "L3",
    "Two programs are open: ngspice's console with divider.cir (12 V across R1 10k and R2 4.7k) and "
    "measurements.xlsx in LibreOffice Calc. In ngspice, compute the DC operating point and write v(out) to "
    "/root/work/vout.txt (print redirected to the file). In Calc, put 'Vout V' in A3 and that voltage rounded to "
    "four decimals in B3, then 'I R2 mA' in A4 and a formula in B4 computing the current through R2 in mA from B3 "
    "(B3 / 4.7), and save the workbook (keep the format).",
    "pipeline",
    {"steps": [{"template": "spice_value", "outputs": {"vout": {"vector": "v(out)", "number": round(
        circuit.divider_out(), 6), "tolerance": 0.001}}},
               {"template": "calc", "values": {"A3": "Vout V", "B3": VOUT, "A4": "I R2 mA", "B4": round(VOUT / 4.7, 9)},
                "formulas": {"B4": "B3/4.7"}, "formula_match": "equivalent",
                "unchanged_from": "engineering/measurements.xlsx"}]},
    {"start_files": [engineering.CALC_FILE, {"src": "fixtures/prosoft/circuit/divider.cir",
                                             "dest": f"{WORK}/divider.cir"}],
     "start_commands": [engineering.CALC, ngspice_cmd("divider.cir")],
     "artifacts": {"vout": f"{WORK}/vout.txt", "workbook": f"{WORK}/measurements.xlsx"}},
    [NGSPICE_AT, *typed("op", f"print v(out) > {WORK}/vout.txt"), W(1), OFFICE_AT, W(1), K("ctrl", "home"),
     P("down"), P("down"), T(f"Vout V\t{VOUT}\nI R2 mA\t=B3/4.7\n"), K("ctrl", "s"), W(3)],
    tags=["ngspice", "calc", "pipeline"], apps=["ngspice", "calc"], knowledge=KNOW, max_steps=60, time_limit_s=900)

TASKS = [ngspice_r_writer, qgis_r_writer, r_calc_impress, librecad_inkscape_impress, ngspice_calc]

if __name__ == "__main__":
    write("pipelines_more", TASKS)
