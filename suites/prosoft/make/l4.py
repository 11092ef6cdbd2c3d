"""Writes tasks/l4.json: the L4 open creation tasks (a letterhead and a flyer in Writer, a poster in Impress, a
chart for print in Calc, a logo and a badge in Inkscape, two figures for publication in R).

Each is scored by checkable constraints on the saved file (kind ``creation``, ``checks/l4.py``) and a rubric
that ``--cua-judge`` grades on a rendering of the file; without a judge the task is partially scored. Every task
carries a knowledge card and a demonstration that meets its constraints. Run from the repository root::

    python suites/prosoft/make/l4.py
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import C, K, P, SAVE, T, W, task, write  # noqa: E402

WORK = "/root/work"


def start(fixture, dest_name, command, window, artifact, timeout=180):
    """Start files, program and window of a task whose result is ``artifact`` (name, container path)."""
    return {"start_files": [{"src": f"fixtures/prosoft/l4/{fixture}", "dest": f"{WORK}/{dest_name}"}],
            "start_command": command, "window": window, "window_timeout_s": timeout,
            "artifacts": {artifact[0]: artifact[1]}}


def office(kind, name, artifact):
    return start(name, name, ["soffice", "--norestore", f"--{kind}", f"{WORK}/{name}"], name.replace(".", "\\."),
                 (artifact, f"{WORK}/{name}"))


def inkscape(name, artifact):
    return start(name, name, ["inkscape", f"{WORK}/{name}"], name.replace(".", "\\."), (artifact, f"{WORK}/{name}"),
                 timeout=240)


R_CMD = ["xterm", "-T", "R console", "-geometry", "140x40+0+0", "-e", "R", "--quiet", "--no-save"]


def r_start(png):
    return {"start_files": [{"src": "fixtures/prosoft/l4/growth.csv", "dest": f"{WORK}/growth.csv"}],
            "start_command": R_CMD, "window": "^R console$", "window_timeout_s": 60,
            "artifacts": {"figure": f"{WORK}/{png}"}}


WRITER_CARD = ["Paragraph styles by keyboard: Ctrl+1 Heading 1, Ctrl+2 Heading 2, Ctrl+0 Text Body; the style box "
               "on the Formatting toolbar takes a style name.",
               "Alignment: Ctrl+E centre, Ctrl+L left, Ctrl+R right, Ctrl+J justify.",
               "Lists: Format > Bullets and Numbering, or Shift+F12 for a bulleted list (F12 numbered); Enter on an "
               "empty item ends the list.",
               "Page size: Format > Page Style > Page (A4 is 210 x 297 mm). Ctrl+S keeps the ODF format without asking."]

letterhead = task(
    "writer-l4-letterhead", "L4",
    "letterhead.odt is open in LibreOffice Writer (an empty A4 page). Design a letterhead for Harbor Light Studio: "
    "the name 'Harbor Light Studio' as a level-1 heading at the top, then a line with the address "
    "'12 Quay Street, Portsmouth PO1 2AB' and a line with the e-mail 'hello@harborlight.example'. Make it look like "
    "a professional letterhead, keep it on the A4 page and save the document (Ctrl+S, ODF format).",
    "creation",
    {"artifact": "letterhead", "format": "odt", "render": "soffice",
     "constraints": {"texts": ["Harbor Light Studio", "12 Quay Street, Portsmouth PO1 2AB",
                               "hello@harborlight.example"],
                     "heading": "Harbor Light Studio", "page": {"width_mm": 210, "height_mm": 297}},
     "rubric": ["The company name is the most prominent text at the top of the page.",
                "The address and the e-mail are shown as contact details under the name, smaller than the name.",
                "The page looks like a clean, professional letterhead (no stray text, nothing cut off)."]},
    office("writer", "letterhead.odt", "letterhead"),
    [W(2), K("ctrl", "home"), K("ctrl", "1"), T("Harbor Light Studio\n"), K("ctrl", "0"),
     T("12 Quay Street, Portsmouth PO1 2AB\nhello@harborlight.example"), P("escape"), *SAVE, W(2)],
    tags=["writer", "creation"], knowledge=WRITER_CARD)

flyer = task(
    "writer-l4-flyer", "L4",
    "flyer.odt is open in LibreOffice Writer. Make a one-page flyer for a bake sale: the title 'Spring Bake Sale' "
    "as a centred level-1 heading, a line 'Saturday 12 April, 10:00-14:00, Village Hall', and a bulleted list of "
    "at least three things on sale (for example cakes, cookies, bread). Make it inviting and easy to read from a "
    "distance, then save the document (Ctrl+S, ODF format).",
    "creation",
    {"artifact": "flyer", "format": "odt", "render": "soffice",
     "constraints": {"texts": ["Spring Bake Sale", "Saturday 12 April, 10:00-14:00, Village Hall"],
                     "heading": "Spring Bake Sale", "centred": "Spring Bake Sale", "list_items": 3},
     "rubric": ["The title 'Spring Bake Sale' stands out as the largest text and is centred.",
                "The date, time and place are easy to find.",
                "The items on sale form a bulleted list of at least three entries.",
                "The flyer is inviting and readable from a distance (clear hierarchy, no clutter)."]},
    office("writer", "flyer.odt", "flyer"),
    [W(2), K("ctrl", "home"), K("ctrl", "1"), K("ctrl", "e"), T("Spring Bake Sale\n"), K("ctrl", "0"), K("ctrl", "e"),
     T("Saturday 12 April, 10:00-14:00, Village Hall\n"), K("ctrl", "l"), K("shift", "f12"),
     T("Cakes and tarts\nCookies\nFresh bread"), P("escape"), *SAVE, W(2)],
    tags=["writer", "creation"], knowledge=WRITER_CARD)

poster = task(
    "impress-l4-poster", "L4",
    "poster.odp is open in LibreOffice Impress: one A3 portrait slide with an empty title and an empty text "
    "placeholder. Turn it into a poster for a public talk: the title 'Night Sky Talk', and in the text area the "
    "lines 'Dr. Maya Chen on dark skies and light pollution' and 'Friday 20 June, 19:30, Town Library'. Make it "
    "look like a poster that draws attention, then save the presentation (Ctrl+S, ODF format).",
    "creation",
    {"artifact": "poster", "format": "odp", "render": "soffice",
     "constraints": {"texts": ["Night Sky Talk", "Dr. Maya Chen on dark skies and light pollution",
                               "Friday 20 June, 19:30, Town Library"],
                     "page": {"width_mm": 297, "height_mm": 420}},
     "rubric": ["'Night Sky Talk' is the dominant element of the poster.",
                "The speaker, the date, the time and the place are all readable on the poster.",
                "The poster uses the page well: no text overflows or is cut off, nothing overlaps."]},
    office("impress", "poster.odp", "poster"),
    [W(3), C(640, 200), W(1), P("tab"), P("enter"), T("Night Sky Talk"), P("escape"), P("tab"), P("enter"),
     T("Dr. Maya Chen on dark skies and light pollution\nFriday 20 June, 19:30, Town Library"), P("escape"),
     P("escape"), *SAVE, W(2)],
    tags=["impress", "creation"],
    knowledge=["In the slide, Tab selects the next object (placeholder) and Enter starts typing in it; Esc leaves "
               "text editing, a second Esc drops the selection.",
               "Format > Character sets size and colour; Slide > Slide Properties > Slide sets the paper (A3 "
               "portrait is 297 x 420 mm) and the background.",
               "A poster reads from a distance: one large title, few lines, high contrast."])

chart = task(
    "calc-l4-print-chart", "L4",
    "quarterly.xlsx is open in LibreOffice Calc with the revenue of four quarters in A1:B5. Add a column chart of "
    "the revenue (B2:B5) by quarter, styled for a printed report: the title 'Revenue by Quarter', readable labels, "
    "no needless decoration. Keep the chart on the Revenue sheet and save the workbook in its current format.",
    "creation",
    {"artifact": "workbook", "format": "xlsx", "render": "soffice",
     "constraints": {"chart": {"series_range": "B2:B5"}, "texts": ["Quarter", "Revenue", "Q4"]},
     "rubric": ["The sheet shows a column (bar) chart of the four quarters' revenue.",
                "The chart has the title 'Revenue by Quarter'.",
                "The chart would print well: readable axis labels, no 3D or heavy decoration."]},
    office("calc", "quarterly.xlsx", "workbook"),
    [W(2), K("ctrl", "home"), K("shift", "ctrl", "end"), P("f10"), P("i"), W(1), P("down"), P("enter"), W(4), K("alt", "n"), W(1),
     K("alt", "n"), W(1), K("alt", "n"), W(2), T("Revenue by Quarter"), W(1), P("enter"), W(3), P("escape"), W(1),
     P("escape"), W(1), *SAVE, W(2)],
    tags=["calc", "creation"],
    knowledge=["Insert > Chart opens the chart wizard on the selected cells (select A1:B5 first: the first row and "
               "column become labels); its 4th step, Chart Elements, has the Title field; Finish inserts the chart.",
               "For print: a 2D column chart, a title, axis labels large enough, no 3D look, no gradient.",
               "Ctrl+S in an .xlsx file keeps the format (LibreOffice may ask: choose Use Excel 2007-365!)."])

LOGO_CARD = ["Inkscape tools by key: E (or F5) ellipse/circle, R (or F4) rectangle, T (or F8) text; drag on the canvas "
             "to draw, Ctrl while dragging keeps a circle or square; Esc ends editing a text.",
             "Object > Fill and Stroke (Ctrl+Shift+F) sets the fill colour as RGBA hex; the palette at the bottom "
             "sets the fill of the selection with a click.",
             "Ctrl+S saves the SVG in place; the page size is set in File > Document Properties."]

logo = task(
    "inkscape-l4-logo", "L4",
    "logo.svg (400 x 400 px, empty) is open in Inkscape. Design a simple logo for the company Northwind: a circle "
    "(or round emblem) with the word 'NORTHWIND' as text, in at most three colours, legible at small size. Keep the "
    "page size and save the drawing (Ctrl+S).",
    "creation",
    {"artifact": "logo", "format": "svg", "render": "inkscape",
     "constraints": {"texts": ["NORTHWIND"], "shapes": {"circle|ellipse": 1}, "page": {"px": [400, 400]}},
     "rubric": ["The logo shows the word NORTHWIND, fully readable.",
                "A circular shape forms part of the logo.",
                "The composition is simple and balanced, in at most three colours."]},
    inkscape("logo.svg", "logo"),
    [W(3), C(640, 420), P("escape"), P("e"), W(1),
     {"type": "drag", "source": {"x": 560, "y": 340}, "destination": {"x": 720, "y": 500}}, W(1), P("escape"),
     P("t"), W(1), C(560, 560), W(1), T("NORTHWIND"), P("escape"), W(1), K("ctrl", "s"), W(3)],
    tags=["inkscape", "creation"], knowledge=LOGO_CARD)

badge = task(
    "inkscape-l4-badge", "L4",
    "badge.svg (340 x 220 px, empty) is open in Inkscape. Make a conference name badge: a rectangle as the "
    "badge's frame or header band, the text 'HELLO' and below it the text 'my name is', with room left for a "
    "name. Keep the page size and save the drawing (Ctrl+S).",
    "creation",
    {"artifact": "badge", "format": "svg", "render": "inkscape",
     "constraints": {"texts": ["HELLO", "my name is"], "shapes": {"rect": 1}, "page": {"px": [340, 220]}},
     "rubric": ["'HELLO' is larger or more prominent than 'my name is'.",
                "A rectangle frames the badge or forms a header band behind the greeting.",
                "There is clear empty space left for writing a name."]},
    inkscape("badge.svg", "badge"),
    [W(3), C(640, 420), P("escape"), P("r"), W(1),
     {"type": "drag", "source": {"x": 520, "y": 330}, "destination": {"x": 760, "y": 380}}, W(1), P("escape"),
     P("t"), W(1), C(560, 420), W(1), T("HELLO"), P("escape"), W(1), C(560, 460), W(1), T("my name is"),
     P("escape"), W(1), K("ctrl", "s"), W(3)],
    tags=["inkscape", "creation"], knowledge=LOGO_CARD)

R_LOAD = 'd <- read.csv("/root/work/growth.csv")\n'
R_CARD = ["A figure for print: png(file, width = 7, height = 5, units = 'in', res = 300) gives 2100 x 1500 px at "
          "300 dpi; close it with dev.off().",
          "Label both axes with units (xlab, ylab), add a legend when there is more than one group, no chart title "
          "inside a journal figure unless asked.",
          "Greyscale: gray(level) or grey.colors(n) for fills and lines, lty/pch to tell groups apart."]

figure = task(
    "r-l4-publication-figure", "L4",
    "In the R console, make a publication-quality figure of plant height over the weeks for the two treatments in "
    "/root/work/growth.csv (columns week, treatment, height in cm): one line per treatment, both axes labelled with "
    "units, a legend. Save it as /root/work/figure.png, 7 x 5 inches at 300 dpi (2100 x 1500 pixels).",
    "creation",
    {"artifact": "figure", "format": "png", "render": "png",
     "constraints": {"image": {"width": 2100, "height": 1500}, "ink": 0.01},
     "rubric": ["The figure shows two lines (or line-and-point series) of height over weeks, one per treatment.",
                "Both axes are labelled, with units (weeks, cm).",
                "A legend tells the two treatments apart.",
                "Fonts and lines are legible at print size; nothing is cut off."]},
    r_start("figure.png"),
    [T(R_LOAD), T('png("/root/work/figure.png", width = 7, height = 5, units = "in", res = 300)\n'),
     T('c <- d[d$treatment == "control", ]; f <- d[d$treatment == "fertilised", ]\n'),
     T('plot(f$week, f$height, type = "b", pch = 16, ylim = c(0, 16), xlab = "Week", ylab = "Height (cm)")\n'),
     T('lines(c$week, c$height, type = "b", pch = 1, lty = 2)\n'),
     T('legend("topleft", legend = c("fertilised", "control"), pch = c(16, 1), lty = c(1, 2), bty = "n")\n'),
     T("dev.off()\n"), W(3)],
    tags=["r", "creation"], knowledge=R_CARD)

grey = task(
    "r-l4-greyscale-bars", "L4",
    "In the R console, make a bar chart of the mean height per treatment of /root/work/growth.csv for a journal "
    "that prints in black and white: greys only (no colour at all), the y axis labelled with units, the bars "
    "labelled with the treatment names. Save it as /root/work/bars.png, 1800 x 1200 pixels.",
    "creation",
    {"artifact": "figure", "format": "png", "render": "png",
     "constraints": {"image": {"width": 1800, "height": 1200}, "ink": 0.01, "grayscale": True},
     "rubric": ["The figure is a bar chart with one bar per treatment (control, fertilised).",
                "The y axis is labelled with its unit (cm).",
                "The greys tell the bars apart and the text is legible."]},
    {**r_start("bars.png")},
    [T(R_LOAD), T("m <- tapply(d$height, d$treatment, mean)\n"),
     T('png("/root/work/bars.png", width = 1800, height = 1200, res = 200)\n'),
     T('barplot(m, col = c("grey30", "grey75"), ylab = "Mean height (cm)", xlab = "Treatment")\n'),
     T("dev.off()\n"), W(3)],
    tags=["r", "creation"], knowledge=R_CARD)

if __name__ == "__main__":
    write("l4", [letterhead, flyer, poster, chart, logo, badge, figure, grey])
