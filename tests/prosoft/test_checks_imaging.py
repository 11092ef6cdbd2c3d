"""The imaging evaluators (GIMP, ImageJ, Avogadro) without docker: a correct artifact passes every milestone,
each kind of wrong artifact fails the milestone that names it, a missing artifact fails (never errors).

Artifacts are built here from the start files (fixtures/prosoft/imaging) with Pillow and plain text, the way the
programs would save them; the ground truths are those of the generated tasks (suites/prosoft/tasks/imaging.json)
where a task exists, so a change of a task's truth is tested too.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any, Mapping

import pytest
from PIL import Image, ImageFilter, ImageOps

from suites.prosoft.checks import avogadro, gimp, imagej
from suites.prosoft.checks.imaging_common import expected_image, gimp_gray, pixels, to_8bit
from suites.prosoft.templates import KINDS, TEMPLATES

from .evaluation import failed, milestones, truth_of as shared_truth_of

ROOT = Path(__file__).resolve().parents[2]
IMAGING = ROOT / "fixtures" / "prosoft" / "imaging"
TASKS = {t["id"]: t for t in json.loads((ROOT / "suites/prosoft/tasks/imaging.json").read_text())["tasks"]}


def run(kind: str, truth: Mapping[str, Any], artifacts: Mapping[str, Path]) -> dict[str, str | None]:
    return milestones(kind, truth, artifacts)


def truth_of(task_id: str, kind: str) -> dict[str, Any]:
    return shared_truth_of(TASKS, task_id, kind)


def photo() -> Image.Image:
    return Image.open(IMAGING / "photo.png").convert("RGB")


def save(image: Image.Image, path: Path, fmt: str = "PNG", **kw: Any) -> Path:
    image.save(path, fmt, **kw)
    return path


# --- GIMP ----------------------------------------------------------------------------------------------------

def test_every_imaging_task_uses_known_kinds_and_a_demonstration():
    assert len(TASKS) >= 27
    for task in TASKS.values():
        assert task["template"] in TEMPLATES, task["id"]
        steps = task["ground_truth"]["steps"] if task["template"] == "pipeline" else [task["ground_truth"]]
        assert all(s.get("template", task["template"]) in KINDS for s in steps), task["id"]
        assert task["demonstration"]["actions"], task["id"]
        assert all(str(f["src"]).startswith("fixtures/prosoft/") and (ROOT / f["src"]).is_file()
                   for f in task.get("start_files", [])), task["id"]


def test_gimp_flip_passes_and_wrong_pictures_fail(tmp_path):
    truth = truth_of("gimp-flip-horizontal", "gimp_image")
    good = save(ImageOps.mirror(photo()), tmp_path / "good.png")
    assert failed(run("gimp_image", truth, {"image": good})) == []
    unchanged = save(photo(), tmp_path / "same.png")
    result = run("gimp_image", truth, {"image": unchanged})
    assert [label for label in failed(result)] == [label for label in result if "shows" in label]
    assert "differs from imaging/photo.png after flip_h" in result[failed(result)[0]]
    jpeg = save(ImageOps.mirror(photo()), tmp_path / "good.jpg", "JPEG", quality=95)
    result = run("gimp_image", truth, {"image": jpeg})
    assert failed(result) == [label for label in result if "PNG file" in label]


def test_gimp_missing_artifact_fails_every_milestone():
    result = run("gimp_image", truth_of("gimp-flip-horizontal", "gimp_image"), {})
    assert result and all("was not produced" in (m or "") for m in result.values())


def test_gimp_scale_checks_size_then_content(tmp_path):
    truth = truth_of("gimp-scale-half", "gimp_image")
    good = save(photo().resize((160, 120), Image.Resampling.BICUBIC), tmp_path / "good.png")
    assert failed(run("gimp_image", truth, {"image": good})) == []
    cropped = save(photo().crop((0, 0, 160, 120)), tmp_path / "crop.png")  # right size, wrong picture
    assert [lb for lb in failed(run("gimp_image", truth, {"image": cropped}))] == [
        lb for lb in run("gimp_image", truth, {"image": good}) if "shows" in lb]
    big = save(photo(), tmp_path / "big.png")
    assert len(failed(run("gimp_image", truth, {"image": big}))) == 2  # size and content


def test_gimp_grayscale_uses_gimps_luminance(tmp_path):
    truth = truth_of("gimp-grayscale", "gimp_image")
    good = save(gimp_gray(photo()), tmp_path / "gray.png")
    assert failed(run("gimp_image", truth, {"image": good})) == []
    as_rgb = save(gimp_gray(photo()).convert("RGB"), tmp_path / "gray_rgb.png")  # exported as RGB: still gray
    assert failed(run("gimp_image", truth, {"image": as_rgb})) == []
    colour = save(photo(), tmp_path / "colour.png")
    labels = failed(run("gimp_image", truth, {"image": colour}))
    assert any("grayscale" in lb for lb in labels) and any("shows" in lb for lb in labels)


def test_gimp_blur_needs_a_blurred_picture(tmp_path):
    truth = truth_of("gimp-blur-invert", "gimp_image")
    blurred = photo().filter(ImageFilter.GaussianBlur(truth["ops"][0][1]))
    good = save(ImageOps.invert(blurred), tmp_path / "blur.png")
    assert failed(run("gimp_image", truth, {"image": good})) == []
    sharp = save(ImageOps.invert(photo()), tmp_path / "sharp.png")  # inverted, not blurred
    labels = failed(run("gimp_image", truth, {"image": sharp}))
    assert any("blurred" in lb for lb in labels)
    not_inverted = save(blurred, tmp_path / "noinv.png")
    labels = failed(run("gimp_image", truth, {"image": not_inverted}))
    assert [lb for lb in labels if "shows" in lb] and not [lb for lb in labels if "blurred" in lb]


def test_gimp_l2_jpeg_thumbnail(tmp_path):
    truth = truth_of("gimp-gray-thumbnail", "gimp_image")
    w, h = truth["size"]
    good = save(gimp_gray(photo().resize((w, h), Image.Resampling.BICUBIC)), tmp_path / "t.jpg", "JPEG", quality=90)
    assert failed(run("gimp_image", truth, {"image": good})) == []
    colour = save(photo().resize((w, h), Image.Resampling.BICUBIC), tmp_path / "c.jpg", "JPEG", quality=90)
    assert any("grayscale" in lb for lb in failed(run("gimp_image", truth, {"image": colour})))
    png = save(gimp_gray(photo().resize((w, h), Image.Resampling.BICUBIC)), tmp_path / "t.png")
    assert [lb for lb in failed(run("gimp_image", truth, {"image": png}))] == ["image is a JPEG file"]


def test_every_gimp_and_imagej_picture_task_passes_with_its_expected_picture(tmp_path):
    """The recomputed expected picture passes its own task (the truth is consistent), and the start picture
    itself does not (noop could not pass)."""
    for task in TASKS.values():
        steps = task["ground_truth"]["steps"] if task["template"] == "pipeline" else [task["ground_truth"]]
        for step in steps:
            kind = step.get("template", task["template"])
            if kind not in ("gimp_image", "imagej_image") or "source" not in step:
                continue
            image = expected_image(step["source"], step.get("ops") or [])
            if step.get("mode") == "L" or step.get("gray"):
                image = image.convert("L")
            fmt = {"JPEG": "JPEG", "TIFF": "TIFF"}.get(str(step.get("format", "PNG")).upper(), "PNG")
            path = save(image if fmt != "JPEG" else image.convert(image.mode), tmp_path / f"{task['id']}.x", fmt,
                        **({"quality": 95} if fmt == "JPEG" else {}))
            name = step.get("artifact", "image")
            assert failed(run(kind, step, {name: path})) == [], task["id"]
            start = Image.open(ROOT / "fixtures/prosoft" / step["source"])
            start_path = save(start, tmp_path / f"{task['id']}.start.{'tif' if fmt == 'TIFF' else 'png'}",
                              "TIFF" if fmt == "TIFF" else "PNG")
            assert failed(run(kind, step, {name: start_path})), f"{task['id']}: the start file passes"


def docx_with(path: Path, pictures: Mapping[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("word/document.xml", "<w:document xmlns:w='http://schemas.openxmlformats.org/"
                                        "wordprocessingml/2006/main'><w:body/></w:document>")
        for member, data in pictures.items():
            z.writestr(f"word/media/{member}", data)
    return path


def png_bytes(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def test_docx_image_finds_the_embedded_picture(tmp_path):
    truth = truth_of("pipe-gimp-writer-figure", "docx_image")
    w, h = truth["size"]
    figure = photo().resize((w, h), Image.Resampling.BICUBIC)
    good = docx_with(tmp_path / "good.docx", {"image1.png": png_bytes(figure), "logo.wmf": b"not a picture"})
    assert failed(run("docx_image", truth, {"document": good})) == []
    none = docx_with(tmp_path / "none.docx", {})
    assert len(failed(run("docx_image", truth, {"document": none}))) == 2
    wrong = docx_with(tmp_path / "wrong.docx", {"image1.png": png_bytes(photo())})
    result = run("docx_image", truth, {"document": wrong})
    assert failed(result) == [lb for lb in result if f"{w}x{h}" in lb]
    assert "found: word/media/image1.png 320x240" in result[failed(result)[0]]
    not_zip = tmp_path / "plain.docx"
    not_zip.write_text("hello")
    assert all("is not a Word document (.docx)" in (m or "") for m in run("docx_image", truth, {"document": not_zip}).values())
    assert all("was not produced" in (m or "") for m in run("docx_image", truth, {}).values())


# --- ImageJ --------------------------------------------------------------------------------------------------

def make_fixtures() -> Any:
    """The start files' generator as a module (it is a script, not a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("imaging_make_fixtures", IMAGING / "make_fixtures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_imagej_eight_bit_conversion(tmp_path):
    truth = truth_of("imagej-8bit", "imagej_image")
    deep = Image.open(IMAGING / "cells16.tif")
    good = save(to_8bit(deep), tmp_path / "c8.tif", "TIFF")
    assert failed(run("imagej_image", truth, {"image": good})) == []
    unchanged = save(deep, tmp_path / "c16.tif", "TIFF")
    labels = failed(run("imagej_image", truth, {"image": unchanged}))
    assert any("8-bit" in lb for lb in labels)
    clipped = Image.new("L", deep.size)  # divided by 16 instead of stretched over min..max
    clipped.putdata([min(255, v // 16) for v in pixels(deep)])
    clipped = save(clipped, tmp_path / "clip.tif", "TIFF")
    assert any("shows" in lb for lb in failed(run("imagej_image", truth, {"image": clipped})))


def results_csv(path: Path, header: list[str], rows: list[list[Any]], row_numbers: bool = True,
                sep: str = ",") -> Path:
    lines = [sep.join(([" "] if row_numbers else []) + header)]
    lines += [sep.join(([str(i + 1)] if row_numbers else []) + [str(v) for v in row]) for i, row in enumerate(rows)]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_imagej_particle_table(tmp_path):
    fixtures = make_fixtures()
    CELLS, cell_areas = fixtures.CELLS, fixtures.cell_areas
    truth = truth_of("imagej-count-cells", "imagej_results")
    areas = cell_areas()
    rows = [[a, float(level), level - 8, level + 7] for a, (_, _, _, level) in zip(areas, CELLS)]
    header = ["Area", "Mean", "Min", "Max"]
    good = results_csv(tmp_path / "good.csv", header, rows)
    assert failed(run("imagej_results", truth, {"results": good})) == []
    tabbed = results_csv(tmp_path / "tab.xls", header, rows, row_numbers=False, sep="\t")
    assert failed(run("imagej_results", truth, {"results": tabbed})) == []
    merged = results_csv(tmp_path / "merged.csv", header, rows[:-2] + [[areas[-2] + areas[-1], 180, 160, 200]])
    labels = failed(run("imagej_results", truth, {"results": merged}))
    assert any("rows" in lb for lb in labels) and any("Area values" in lb for lb in labels)
    no_area = results_csv(tmp_path / "noarea.csv", ["Mean"], [[r[1]] for r in rows])
    result = run("imagej_results", truth, {"results": no_area})
    assert any("no column 'Area'" in (m or "") for m in result.values())
    assert all("was not produced" in (m or "") for m in run("imagej_results", truth, {}).values())


def test_imagej_roi_measurement(tmp_path):
    truth = truth_of("imagej-roi-mean", "imagej_results")
    mean = truth["row"]["Mean"]["value"]
    area = truth["row"]["Area"]["value"]
    good = results_csv(tmp_path / "m.csv", ["Area", "Mean", "Min", "Max"], [[area, mean, 0, 255]])
    assert failed(run("imagej_results", truth, {"results": good})) == []
    whole = results_csv(tmp_path / "w.csv", ["Area", "Mean", "Min", "Max"], [[65536, 50.1, 12, 227]])
    assert len(failed(run("imagej_results", truth, {"results": whole}))) == 2


# --- Avogadro ------------------------------------------------------------------------------------------------

ETHANOL_MOL = """ethanol
  Avogadro

  9  8  0  0  0  0  0  0  0  0999 V2000
   -0.0467    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0
    1.4733    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0
    1.9533    1.3462    0.0000 O   0  0  0  0  0  0  0  0  0  0  0  0
   -0.4100   -1.0277    0.0000 H   0  0  0  0  0  0  0  0  0  0  0  0
   -0.4100    0.5138    0.8900 H   0  0  0  0  0  0  0  0  0  0  0  0
   -0.4100    0.5138   -0.8900 H   0  0  0  0  0  0  0  0  0  0  0  0
    1.8367   -0.5138    0.8900 H   0  0  0  0  0  0  0  0  0  0  0  0
    1.8367   -0.5138   -0.8900 H   0  0  0  0  0  0  0  0  0  0  0  0
    2.9133    1.3462    0.0000 H   0  0  0  0  0  0  0  0  0  0  0  0
  1  2  1  0  0  0  0
  2  3  1  0  0  0  0
  1  4  1  0  0  0  0
  1  5  1  0  0  0  0
  1  6  1  0  0  0  0
  2  7  1  0  0  0  0
  2  8  1  0  0  0  0
  3  9  1  0  0  0  0
M  END
"""


def test_molecule_mol_with_hydrogens(tmp_path):
    truth = truth_of("avogadro-add-hydrogens", "molecule")
    good = tmp_path / "good.mol"
    good.write_text(ETHANOL_MOL)
    assert failed(run("molecule", truth, {"molecule": good})) == []
    start = IMAGING / "ethanol_heavy.mol"  # noop: the heavy-atom file saved unchanged
    labels = failed(run("molecule", truth, {"molecule": start}))
    assert any("formula" in lb for lb in labels) and any("bonds" in lb for lb in labels)
    moved = tmp_path / "moved.mol"  # a molecule rebuilt elsewhere
    moved.write_text(ETHANOL_MOL.replace("    1.9533    1.3462", "    5.9533    1.3462"))
    assert [lb for lb in failed(run("molecule", truth, {"molecule": moved}))] == [
        lb for lb in run("molecule", truth, {"molecule": good}) if "keeps" in lb]
    xyz = tmp_path / "as.xyz"
    xyz.write_text((IMAGING / "ethanol.xyz").read_text())
    assert all(m for m in run("molecule", truth, {"molecule": xyz}).values())  # not a molfile: every check fails
    assert all("was not produced" in (m or "") for m in run("molecule", truth, {}).values())


def test_molecule_cml_and_cjson_and_v3000(tmp_path):
    atoms = [line.split() for line in (IMAGING / "ethanol.xyz").read_text().splitlines()[2:]]
    cml = tmp_path / "e.cml"
    cml.write_text('<?xml version="1.0"?><molecule xmlns="http://www.xml-cml.org/schema"><atomArray>'
                   + "".join(f'<atom id="a{i + 1}" elementType="{a[0]}" x3="{a[1]}" y3="{a[2]}" z3="{a[3]}"/>'
                             for i, a in enumerate(atoms))
                   + '</atomArray><bondArray><bond atomRefs2="a1 a2" order="1"/></bondArray></molecule>')
    mol = avogadro.read_molecule(cml, "cml")
    assert avogadro.formula(mol) == "C2H6O" and mol.bonds == [(0, 1, 1)]
    cjson = tmp_path / "e.cjson"
    numbers = {"C": 6, "H": 1, "O": 8}
    cjson.write_text(json.dumps({"atoms": {"elements": {"number": [numbers[a[0]] for a in atoms]},
                                           "coords": {"3d": [float(v) for a in atoms for v in a[1:]]}},
                                 "bonds": {"connections": {"index": [0, 1, 1, 2]}, "order": [1, 1]}}))
    mol = avogadro.read_molecule(cjson, "cjson")
    assert avogadro.formula(mol) == "C2H6O" and len(mol.bonds or []) == 2
    v3000 = tmp_path / "e.mol"
    v3000.write_text("x\n  y\n\n  0  0  0     0  0            999 V3000\nM  V30 BEGIN CTAB\nM  V30 COUNTS 2 1 0 0 0\n"
                     "M  V30 BEGIN ATOM\nM  V30 1 C 0 0 0 0\nM  V30 2 S 1.8 0 0 0\nM  V30 END ATOM\n"
                     "M  V30 BEGIN BOND\nM  V30 1 1 1 2\nM  V30 END BOND\nM  V30 END CTAB\nM  END\n")
    mol = avogadro.read_molecule(v3000, "mol")
    assert avogadro.formula(mol) == "CS" and mol.bonds == [(0, 1, 1)]
    bad = tmp_path / "bad.cml"
    bad.write_text("<not closed")
    with pytest.raises(AssertionError, match="not a cml molecule file"):
        avogadro.read_molecule(bad, "cml")


def test_hill_formula_and_mass():
    mol = avogadro.Molecule(atoms=[("O", 0, 0, 0), ("H", 0, 0, 1), ("H", 0, 1, 0)])
    assert avogadro.formula(mol) == "H2O"
    mol = avogadro.Molecule(atoms=[("Cl", 0, 0, 0), ("C", 0, 0, 1), ("H", 0, 1, 0), ("Br", 1, 0, 0)])
    assert avogadro.formula(mol) == "CHBrCl"
    ethanol = avogadro.read_molecule(IMAGING / "ethanol.xyz", "xyz")
    assert round(avogadro.molar_mass(ethanol), 2) == 46.07


def test_molecule_changed_element_task(tmp_path):
    truth = truth_of("avogadro-ethanethiol", "molecule")
    thiol = tmp_path / "t.mol"
    thiol.write_text(ETHANOL_MOL.replace(" O   0", " S   0"))
    assert failed(run("molecule", truth, {"molecule": thiol})) == []
    ethanol = tmp_path / "e.mol"
    ethanol.write_text(ETHANOL_MOL)
    labels = failed(run("molecule", truth, {"molecule": ethanol}))
    assert any("formula" in lb for lb in labels) and any("bonds C-S" in lb for lb in labels)


def test_modules_export_their_kinds():
    assert set(gimp.KINDS) == {"gimp_image", "docx_image"}
    assert set(imagej.KINDS) == {"imagej_image", "imagej_results"}
    assert set(avogadro.KINDS) == {"molecule"}
