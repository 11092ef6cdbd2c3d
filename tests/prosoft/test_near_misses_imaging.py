"""Near misses for the imaging evaluator kinds (GIMP: gimp_image, docx_image; ImageJ: imagej_image,
imagej_results; Avogadro: molecule); the runner and the scenarios are those of ``test_near_misses.py``. The
artifacts are built with Pillow and plain text from the start files, as ``test_checks_imaging.py`` builds them."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image, ImageOps

from .test_checks_imaging import ETHANOL_MOL, docx_with, make_fixtures, photo, png_bytes, results_csv, save
from .test_near_misses import ALL, REPORT, Case, check_case, copy, empty, report_docx, text

IMAGING = Path(__file__).resolve().parents[2] / "fixtures" / "prosoft" / "imaging"
SHOWS = "image shows imaging/photo.png after flip_h"
CELLS_SHOW = "image shows imaging/cells.tif after invert"
RESULTS = {"results has 12 rows", "results total Area ≈ 4000", "results Area values"}
FIGURE = {"figure is a PNG file", "figure is 160x120 px", "figure shows imaging/photo.png after scale 160 120"}
DOCX_PICTURE = {"document embeds a picture", "document embeds the 160x120 picture"}


def cells() -> Image.Image:
    return Image.open(IMAGING / "cells.tif")


def particles(path: Path, drop: int = 0) -> Path:
    """ImageJ's Results table of Analyze Particles (Area, Mean, Min, Max), ``drop`` cells left out."""
    fixtures = make_fixtures()
    rows = [[a, float(level), level - 8, level + 7] for a, (_, _, _, level) in zip(fixtures.cell_areas(),
                                                                                    fixtures.CELLS)]
    return results_csv(path, ["Area", "Mean", "Min", "Max"], rows[:len(rows) - drop])


def report_with_picture(path: Path, picture: Image.Image) -> Path:
    """report.docx with its three paragraphs and ``picture`` in word/media/."""
    import zipfile

    report_docx(path, [(p, False) for p in REPORT])
    with zipfile.ZipFile(path, "a") as z:
        z.writestr("word/media/image1.png", png_bytes(picture))
    return path


def figure(path: Path) -> Path:
    return save(photo().resize((160, 120), Image.Resampling.BICUBIC), path)


CASES: list[Case] = [
    # gimp_image
    Case("gimp/correct", "correct", lambda t: {"image": save(ImageOps.mirror(photo()), t / "flipped.png")}, set(),
         task="gimp-flip-horizontal"),
    Case("gimp/wrong-param: flipped vertically", "wrong-param",
         lambda t: {"image": save(ImageOps.flip(photo()), t / "flipped.png")}, {SHOWS}, task="gimp-flip-horizontal"),
    Case("gimp/wrong-place", "wrong-place", lambda t: {}, ALL, task="gimp-flip-horizontal"),
    Case("gimp/unsaved: exported before flipping", "unsaved", lambda t: {"image": save(photo(), t / "flipped.png")},
         {SHOWS}, task="gimp-flip-horizontal"),
    Case("gimp/wrong-type: JPEG content under .png", "wrong-type",
         lambda t: {"image": save(ImageOps.mirror(photo()), t / "flipped.png", "JPEG", quality=95)},
         {"image is a PNG file"}, task="gimp-flip-horizontal"),
    Case("gimp/wrong-type: the XCF project text under .png", "wrong-type",
         lambda t: {"image": text(t / "flipped.png", "gimp xcf v011 (not really)")}, ALL, task="gimp-flip-horizontal",
         says="is not a picture (PNG, JPEG, TIFF, ...): it is"),
    # imagej_image
    Case("imagej/correct", "correct", lambda t: {"image": save(ImageOps.invert(cells()), t / "inv.png")}, set(),
         task="imagej-invert"),
    Case("imagej/wrong-param: flipped, not inverted", "wrong-param",
         lambda t: {"image": save(ImageOps.mirror(cells()), t / "inv.png")}, {CELLS_SHOW}, task="imagej-invert"),
    Case("imagej/wrong-place", "wrong-place", lambda t: {}, ALL, task="imagej-invert"),
    Case("imagej/unsaved", "unsaved", lambda t: {"image": save(cells(), t / "inv.png")}, {CELLS_SHOW},
         task="imagej-invert"),
    Case("imagej/wrong-type: empty", "wrong-type", lambda t: {"image": empty(t / "inv.png")}, ALL,
         task="imagej-invert", says="it is an empty file"),
    # imagej_results
    Case("imagej-results/correct", "correct", lambda t: {"results": particles(t / "particles.csv")}, set(),
         task="imagej-count-cells"),
    Case("imagej-results/wrong-param: edge cells excluded", "wrong-param",
         lambda t: {"results": particles(t / "particles.csv", drop=1)}, RESULTS, task="imagej-count-cells"),
    Case("imagej-results/wrong-place", "wrong-place", lambda t: {}, ALL, task="imagej-count-cells"),
    Case("imagej-results/unsaved: the table of a Measure, before Analyze Particles", "unsaved",
         lambda t: {"results": results_csv(t / "particles.csv", ["Area", "Mean", "Min", "Max"],
                                           [[65536, 50.1, 12, 227]])}, RESULTS, task="imagej-count-cells"),
    Case("imagej-results/wrong-type: the mask picture under .csv", "wrong-type",
         lambda t: {"results": save(cells(), t / "particles.csv", "PNG")}, ALL, task="imagej-count-cells",
         says="is not a text file: it is a PNG image"),
    # molecule
    Case("molecule/correct", "correct", lambda t: {"molecule": text(t / "ethanol.mol", ETHANOL_MOL)}, set(),
         task="avogadro-add-hydrogens"),
    Case("molecule/wrong-param: one hydrogen short", "wrong-param",
         lambda t: {"molecule": text(t / "ethanol.mol", ETHANOL_MOL.replace("  9  8  0", "  8  7  0").replace(
             "    2.9133    1.3462    0.0000 H   0  0  0  0  0  0  0  0  0  0  0  0\n", "").replace(
             "  3  9  1  0  0  0  0\n", ""))},
         {"molecule formula C2H6O", "molecule has 8 bonds"}, task="avogadro-add-hydrogens"),
    Case("molecule/wrong-place", "wrong-place", lambda t: {}, ALL, task="avogadro-add-hydrogens"),
    Case("molecule/unsaved", "unsaved", lambda t: {"molecule": copy(IMAGING / "ethanol_heavy.mol", t / "ethanol.mol")},
         {"molecule formula C2H6O", "molecule has 8 bonds"}, task="avogadro-add-hydrogens"),
    Case("molecule/wrong-type: a PNG under .mol", "wrong-type",
         lambda t: {"molecule": save(photo(), t / "ethanol.mol")}, ALL, task="avogadro-add-hydrogens",
         says="is not a text file: it is a PNG image"),
    # docx_image (GIMP -> Writer pipeline: gimp_image, docx_image and writer's keeps)
    Case("docx-image/correct", "correct",
         lambda t: {"figure": figure(t / "figure.png"),
                    "document": report_with_picture(t / "report.docx", photo().resize((160, 120)))}, set(),
         task="pipe-gimp-writer-figure"),
    Case("docx-image/wrong-param: the unscaled photo inserted", "wrong-param",
         lambda t: {"figure": figure(t / "figure.png"), "document": report_with_picture(t / "report.docx", photo())},
         {"document embeds the 160x120 picture"}, task="pipe-gimp-writer-figure"),
    Case("docx-image/wrong-place: the figure exported elsewhere", "wrong-place",
         lambda t: {"document": report_with_picture(t / "report.docx", photo().resize((160, 120)))}, FIGURE,
         task="pipe-gimp-writer-figure"),
    Case("docx-image/unsaved: the report not saved", "unsaved",
         lambda t: {"figure": figure(t / "figure.png"), "document": copy(IMAGING.parent / "report.docx",
                                                                         t / "report.docx")},
         DOCX_PICTURE, task="pipe-gimp-writer-figure"),
    Case("docx-image/wrong-type: ODT content as .docx", "wrong-type",
         lambda t: {"figure": figure(t / "figure.png"),
                    "document": copy(IMAGING.parent / "l4" / "letterhead.odt", t / "report.docx")},
         {*DOCX_PICTURE, "document keeps the original text"}, task="pipe-gimp-writer-figure",
         says="is not a Word document (.docx): it is an OpenDocument text (.odt)"),
    Case("docx-image/picture only (no text)", "wrong-param",
         lambda t: {"figure": figure(t / "figure.png"),
                    "document": docx_with(t / "report.docx", {"image1.png": png_bytes(photo().resize((160, 120)))})},
         {"document keeps the original text"}, task="pipe-gimp-writer-figure"),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_imaging_near_miss(case: Case, tmp_path: Path) -> None:
    check_case(case, tmp_path)
