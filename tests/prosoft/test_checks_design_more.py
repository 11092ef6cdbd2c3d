"""The evaluators of the design-program tasks (checks/r_more.py, checks/inkscape_more.py, checks/gimp_more.py)
without docker, on the ground truths of the generated tasks (tasks/r_more.json, inkscape_more.json,
gimp_more.json): the artifact the demonstration makes passes every milestone, and each near miss (the right
operation with a wrong parameter, the file saved elsewhere, an unsaved change, a file of the wrong type) fails the
milestone that should fail, never with an evaluator error.
"""

from __future__ import annotations

import csv
import gzip
import json
import struct
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import pytest

from suites.prosoft.templates import KINDS, TEMPLATES

from .evaluation import failed, milestones, truth_of

ROOT = Path(__file__).resolve().parents[2]
DESIGN = ROOT / "fixtures" / "prosoft" / "design"


def tasks(group: str) -> dict[str, dict[str, Any]]:
    path = ROOT / "suites" / "prosoft" / "tasks" / f"{group}.json"
    return {t["id"]: t for t in json.loads(path.read_text())["tasks"]} if path.is_file() else {}


R_TASKS, INK_TASKS, GIMP_TASKS = tasks("r_more"), tasks("inkscape_more"), tasks("gimp_more")


@pytest.mark.parametrize("group", ["r_more", "inkscape_more", "gimp_more"])
def test_every_task_has_a_known_kind_a_level_an_app_and_start_files(group):
    found = tasks(group)
    if group != "gimp_more" or found:
        assert found, group
    for task in found.values():
        assert task["template"] in TEMPLATES, task["id"]
        steps = task["ground_truth"]["steps"] if task["template"] == "pipeline" else [task["ground_truth"]]
        assert all(s.get("template", task["template"]) in KINDS for s in steps), task["id"]
        assert task["level"] in ("L1", "L2") and task["apps"], task["id"]
        assert task["demonstration"]["actions"], task["id"]
        assert all((ROOT / f["src"]).is_file() for f in task.get("start_files", [])), task["id"]


def test_no_two_tasks_share_start_files_and_expected_result():
    seen: dict[str, str] = {}
    for task in [*R_TASKS.values(), *INK_TASKS.values(), *GIMP_TASKS.values()]:
        key = json.dumps([sorted(f["src"] for f in task.get("start_files", [])), task["ground_truth"]], sort_keys=True)
        assert key not in seen, f"{task['id']} repeats {seen.get(key)}"
        seen[key] = task["id"]


# --- R --------------------------------------------------------------------------------------------------------

def study() -> list[dict[str, str]]:
    with open(DESIGN / "study.csv", newline="") as f:
        return list(csv.DictReader(f))


def write_csv(path: Path, header: Sequence[str], rows: Sequence[Sequence[Any]], row_names: bool = False) -> Path:
    """A CSV as R's write.csv writes it (strings quoted; with row names: an empty first header)."""
    def cell(v: Any) -> str:
        return f'"{v}"' if isinstance(v, str) else repr(v)
    lines = [",".join(cell(h) for h in ([""] if row_names else []) + list(header))]
    lines += [",".join(([cell(str(i + 1))] if row_names else []) + [cell(v) for v in row]) for i, row in enumerate(rows)]
    path.write_text("\n".join(lines) + "\n")
    return path


def run(task_id: str, kind: str, artifacts: Mapping[str, Path], group: Mapping[str, Any] = R_TASKS) -> dict[str, str | None]:
    return milestones(kind, truth_of(group, task_id, kind), artifacts)


def coefficients(*xs: str) -> list[tuple[str, float]]:
    rows = study()
    y = np.array([float(r["score"]) for r in rows])
    X = np.column_stack([np.ones(len(rows)), *[[float(r[x]) for r in rows] for x in xs]])
    beta = np.linalg.lstsq(X, y, rcond=None)[0]
    return list(zip(["(Intercept)", *xs], (float(b) for b in beta)))


def test_lm_coefficients_pass_and_the_wrong_model_row_names_and_wrong_type_fail(tmp_path):
    good = write_csv(tmp_path / "coefficients.csv", ["term", "estimate"], coefficients("dose"))
    assert not failed(run("r-lm-coefficients", "r_table", {"coefficients": good}))
    wrong_model = write_csv(tmp_path / "age.csv", ["term", "estimate"], coefficients("age"))
    result = run("r-lm-coefficients", "r_table", {"coefficients": wrong_model})
    assert failed(result) == ["coefficients rows and values"], result
    named = write_csv(tmp_path / "named.csv", ["term", "estimate"], coefficients("dose"), row_names=True)
    assert failed(run("r-lm-coefficients", "r_table", {"coefficients": named})) == ["coefficients has no row names"]
    png = tmp_path / "png.csv"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 40)
    result = run("r-lm-coefficients", "r_table", {"coefficients": png})
    assert len(failed(result)) == len(result) and "a PNG image" in str(result), result
    result = run("r-lm-coefficients", "r_table", {})  # saved elsewhere: the artifact was not produced
    assert len(failed(result)) == len(result) and "not produced" in str(result)


def test_filter_sort_in_the_wrong_order_fails_only_the_order(tmp_path):
    rows = sorted(((int(r["id"]), float(r["score"])) for r in study() if float(r["score"]) > 70), key=lambda p: -p[1])
    good = write_csv(tmp_path / "top.csv", ["id", "score"], rows)
    assert not failed(run("r-filter-sort", "r_table", {"top": good}))
    ascending = write_csv(tmp_path / "asc.csv", ["id", "score"], rows[::-1])
    assert failed(run("r-filter-sort", "r_table", {"top": ascending})) == ["top row order"]
    threshold = write_csv(tmp_path / "ge.csv", ["id", "score"],
                          sorted(((int(r["id"]), float(r["score"])) for r in study() if float(r["score"]) > 65),
                                 key=lambda p: -p[1]))
    assert "top rows and values" in failed(run("r-filter-sort", "r_table", {"top": threshold}))


def test_welch_p_value_passes_and_students_fails(tmp_path):
    from scipy import stats

    rows = study()
    young = [float(r["score"]) for r in rows if int(r["age"]) < 45]
    old = [float(r["score"]) for r in rows if int(r["age"]) >= 45]
    welch = tmp_path / "p.txt"
    welch.write_text(f"{stats.ttest_ind(young, old, equal_var=False).pvalue:.10f}\n")
    assert not failed(run("r-welch-ttest", "r_output", {"p": welch}))
    student = tmp_path / "student.txt"
    student.write_text(f"{stats.ttest_ind(young, old).pvalue:.10f}\n")
    assert failed(run("r-welch-ttest", "r_output", {"p": student})) == ["p output"]


def test_quartiles_of_another_quantile_type_fail(tmp_path):
    scores = [float(r["score"]) for r in study()]
    good = tmp_path / "q.txt"
    good.write_text("\n".join(str(v) for v in np.percentile(scores, [25, 50, 75])) + "\n")
    assert not failed(run("r-score-quartiles", "r_output", {"quartiles": good}))
    type6 = tmp_path / "q6.txt"
    type6.write_text("\n".join(str(v) for v in np.percentile(scores, [25, 50, 75], method="weibull")) + "\n")
    assert failed(run("r-score-quartiles", "r_output", {"quartiles": type6})) == ["quartiles output"]


def test_correlation_matrix_needs_its_row_names(tmp_path):
    rows = study()
    cols = ["dose", "age", "score"]
    matrix = np.corrcoef(np.array([[float(r[c]) for r in rows] for c in cols]))
    good = tmp_path / "cor.csv"
    good.write_text('"","dose","age","score"\n' + "".join(
        f'"{c}",' + ",".join(repr(float(v)) for v in matrix[i]) + "\n" for i, c in enumerate(cols)))
    assert not failed(run("r-cor-matrix", "r_table", {"cor": good}))
    spearman = tmp_path / "rank.csv"
    from scipy import stats
    rho = stats.spearmanr(np.array([[float(r[c]) for c in cols] for r in rows])).statistic
    spearman.write_text('"","dose","age","score"\n' + "".join(
        f'"{c}",' + ",".join(repr(float(v)) for v in rho[i]) + "\n" for i, c in enumerate(cols)))
    assert failed(run("r-cor-matrix", "r_table", {"cor": spearman})) == ["cor rows and values"]


def test_reshape_long_with_a_missing_time_fails(tmp_path):
    with open(DESIGN / "wide.csv", newline="") as f:
        wide = list(csv.DictReader(f))
    rows = [(r["id"], t, float(r[t])) for r in wide for t in ("t1", "t2", "t3")]
    assert not failed(run("r-reshape-long", "r_table", {"long": write_csv(tmp_path / "l.csv", ["id", "time", "value"], rows)}))
    short = [row for row in rows if row[1] != "t3"]
    result = run("r-reshape-long", "r_table", {"long": write_csv(tmp_path / "s.csv", ["id", "time", "value"], short)})
    assert failed(result) == ["long rows and values"], result


# R's XDR serialization, written here the way saveRDS writes a data frame (version 3, gzip)
def _int(v: int) -> bytes:
    return struct.pack(">i", v)


def _chars(text: str) -> bytes:
    data = text.encode()
    return _int(0x00040009) + _int(len(data)) + data


def _vector(kind: int, values: Sequence[Any], attrs: bytes = b"") -> bytes:
    flags = kind | (512 if attrs else 0)
    if kind == 14:
        body = b"".join(struct.pack(">d", v) for v in values)
    elif kind == 16:
        body = b"".join(_chars(v) for v in values)
    else:
        body = b"".join(_int(v) for v in values)
    return _int(flags) + _int(len(values)) + body + attrs


def _attr(pairs: Sequence[tuple[str, bytes]]) -> bytes:
    out = b""
    for tag, value in pairs:
        out += _int(2 | 1024) + _int(1) + _chars(tag) + value
    return out + _int(254)


def rds(path: Path, columns: Mapping[str, Sequence[Any]], compress: bool = True) -> Path:
    items = []
    for values in columns.values():
        kind = 16 if isinstance(values[0], str) else 13 if isinstance(values[0], int) else 14
        items.append(_vector(kind, values))
    n = len(next(iter(columns.values())))
    attrs = _attr([("names", _vector(16, list(columns))), ("class", _vector(16, ["data.frame"])),
                   ("row.names", _vector(13, [-(2 ** 31), -n]))])
    body = b"X\n" + _int(3) + _int(0x40202) + _int(0x30500) + _int(5) + b"UTF-8"
    body += _int(19 | 512 | 256) + _int(len(items)) + b"".join(items) + attrs
    path.write_bytes(gzip.compress(body) if compress else body)
    return path


def group_rows(group: str) -> dict[str, list[Any]]:
    rows = [r for r in study() if r["group"] == group]
    return {"id": [int(r["id"]) for r in rows], "group": [group] * len(rows), "dose": [int(r["dose"]) for r in rows],
            "age": [int(r["age"]) for r in rows], "score": [float(r["score"]) for r in rows]}


def test_rds_of_group_c_passes_and_another_group_csv_or_a_column_less_fail(tmp_path):
    assert not failed(run("r-save-rds", "r_rds", {"rds": rds(tmp_path / "c.rds", group_rows("C"))}))
    assert not failed(run("r-save-rds", "r_rds", {"rds": rds(tmp_path / "u.rds", group_rows("C"), compress=False)}))
    result = run("r-save-rds", "r_rds", {"rds": rds(tmp_path / "a.rds", group_rows("A"))})
    assert failed(result) == ["rds values"], result
    fewer = {k: v for k, v in group_rows("C").items() if k != "age"}
    assert "rds is a data frame with columns id, group, dose, age, score" in failed(
        run("r-save-rds", "r_rds", {"rds": rds(tmp_path / "f.rds", fewer)}))
    text = tmp_path / "csv.rds"
    text.write_text("id,group\n3,C\n")
    result = run("r-save-rds", "r_rds", {"rds": text})
    assert len(failed(result)) == 2 and "not an R data file" in str(result) and "text starting" in str(result)
    assert len(failed(run("r-save-rds", "r_rds", {}))) == 2


def test_png_of_the_wrong_size_fails(tmp_path):
    from PIL import Image, ImageDraw

    def plot(size: tuple[int, int]) -> Path:
        image = Image.new("RGB", size, "white")
        ImageDraw.Draw(image).rectangle((50, 50, size[0] - 50, size[1] - 50), fill="grey")
        path = tmp_path / f"{size[0]}.png"
        image.save(path)
        return path
    assert not failed(run("r-score-histogram", "r_output", {"plot": plot((800, 600))}))
    assert failed(run("r-score-histogram", "r_output", {"plot": plot((480, 480))})) == ["plot output"]


# --- Inkscape -------------------------------------------------------------------------------------------------

SHAPES_SVG = (DESIGN / "shapes.svg").read_text()


def svg(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def ink(task_id: str, kind: str, artifacts: Mapping[str, Path]) -> dict[str, str | None]:
    return milestones(kind, truth_of(INK_TASKS, task_id, kind), artifacts)


def test_unchanged_drawing_fails_every_inkscape_task(tmp_path):
    """The unsaved change: the start file as it was fails each task's milestones (pipelines: their svg step)."""
    start = svg(tmp_path, "shapes.svg", SHAPES_SVG)
    for task_id, task in INK_TASKS.items():
        steps = task["ground_truth"]["steps"] if task["template"] == "pipeline" else [task["ground_truth"]]
        for step in steps:
            kind = step.get("template", task["template"])
            if kind == "svg_png":
                continue
            assert failed(ink(task_id, kind, {"drawing": start})), task_id


def test_position_and_size_through_x_or_a_transform_and_a_wrong_size(tmp_path):
    moved = SHAPES_SVG.replace('<rect id="sq" x="40" y="40" width="100" height="100"',
                               '<rect id="sq" x="200" y="150" width="80" height="60"')
    assert not failed(ink("inkscape-position-size", "svg_shapes", {"drawing": svg(tmp_path, "a.svg", moved)}))
    transformed = SHAPES_SVG.replace('<rect id="sq" x="40" y="40" width="100" height="100"',
                                     '<rect id="sq" x="0" y="0" width="40" height="30" transform="translate(200,150) '
                                     'scale(2)"')
    assert not failed(ink("inkscape-position-size", "svg_shapes", {"drawing": svg(tmp_path, "t.svg", transformed)}))
    wrong = SHAPES_SVG.replace('<rect id="sq" x="40" y="40" width="100" height="100"',
                               '<rect id="sq" x="200" y="150" width="60" height="80"')
    assert failed(ink("inkscape-position-size", "svg_shapes", {"drawing": svg(tmp_path, "w.svg", wrong)}))


def test_rotation_by_a_transform_passes_and_a_flip_fails(tmp_path):
    rotated = SHAPES_SVG.replace('<rect id="bar"', '<rect id="bar" transform="rotate(90,190,220)"')
    assert not failed(ink("inkscape-rotate-bar", "svg_shapes", {"drawing": svg(tmp_path, "r.svg", rotated)}))
    flipped = SHAPES_SVG.replace('<rect id="bar"', '<rect id="bar" transform="matrix(-1,0,0,1,380,0)"')
    assert failed(ink("inkscape-rotate-bar", "svg_shapes", {"drawing": svg(tmp_path, "f.svg", flipped)}))


def test_object_to_path_and_a_path_of_another_colour(tmp_path):
    path = '<path id="dot" d="m 310,90 a 50,50 0 0 1 -50,50 50,50 0 0 1 -50,-50 50,50 0 0 1 50,-50 50,50 0 0 1 50,50 z" '
    good = SHAPES_SVG.replace('<circle id="dot" cx="260" cy="90" r="50" fill="#cc3333"/>', path + 'style="fill:#cc3333"/>')
    assert not failed(ink("inkscape-object-to-path", "svg_shapes", {"drawing": svg(tmp_path, "p.svg", good)}))
    blue = SHAPES_SVG.replace('<circle id="dot" cx="260" cy="90" r="50" fill="#cc3333"/>', path + 'style="fill:#0000ff"/>')
    assert failed(ink("inkscape-object-to-path", "svg_shapes", {"drawing": svg(tmp_path, "b.svg", blue)})) == [
        "drawing a path with bbox [210, 40, 100, 100], fill #cc3333"]


def test_group_of_the_wrong_pair_and_a_layer_with_another_name_fail(tmp_path):
    def grouped(ids: Sequence[str]) -> str:
        lines = SHAPES_SVG.splitlines()
        inside = [ln for ln in lines if any(f'id="{i}"' in ln for i in ids)]
        rest = [ln for ln in lines if ln not in inside]
        at = next(i for i, ln in enumerate(rest) if "</g>" in ln)
        return "\n".join([*rest[:at], "<g id='g1'>", *inside, "</g>", *rest[at:]])
    assert not failed(ink("inkscape-group-pair", "svg_structure", {"drawing": svg(tmp_path, "g.svg", grouped(["sq", "dot"]))}))
    assert failed(ink("inkscape-group-pair", "svg_structure", {"drawing": svg(tmp_path, "h.svg", grouped(["sq", "dot", "bar"]))}))
    layer = '<g inkscape:groupmode="layer" inkscape:label="{}" id="layer2"/>\n</svg>'
    good = SHAPES_SVG.replace("</svg>", layer.format("Notes"))
    assert not failed(ink("inkscape-add-layer", "svg_structure", {"drawing": svg(tmp_path, "l.svg", good)}))
    other = SHAPES_SVG.replace("</svg>", layer.format("Layer 2"))
    assert failed(ink("inkscape-add-layer", "svg_structure", {"drawing": svg(tmp_path, "o.svg", other)}))


def test_document_size_in_mm_and_a_png_under_the_svg_name(tmp_path):
    good = SHAPES_SVG.replace('width="400" height="300" viewBox="0 0 400 300"',
                              'width="158.75mm" height="119.0625mm" viewBox="0 0 400 300"')
    assert not failed(ink("inkscape-document-size", "svg_document", {"drawing": svg(tmp_path, "d.svg", good)}))
    wrong = SHAPES_SVG.replace('width="400" height="300"', 'width="600" height="400"')
    assert failed(ink("inkscape-document-size", "svg_document", {"drawing": svg(tmp_path, "w.svg", wrong)})) == [
        "drawing document height 450 px"]
    png = tmp_path / "png.svg"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 30)
    result = ink("inkscape-document-size", "svg_document", {"drawing": png})
    assert len(failed(result)) == len(result) and "a PNG image" in str(result)


def test_exported_png_of_the_wrong_size_or_blank_fails(tmp_path):
    from PIL import Image, ImageDraw

    def page(size: tuple[int, int], blank: bool = False) -> Path:
        image = Image.new("RGB", size, "white")
        if not blank:
            s = size[0] / 400
            draw = ImageDraw.Draw(image)
            draw.rectangle((40 * s, 40 * s, 140 * s, 140 * s), fill="#3366cc")
            draw.ellipse((210 * s, 40 * s, 310 * s, 140 * s), fill="#cc3333")
        path = tmp_path / f"{size[0]}{blank}.png"
        image.save(path)
        return path
    assert not failed(ink("inkscape-export-png", "svg_png", {"png": page((800, 600))}))
    assert failed(ink("inkscape-export-png", "svg_png", {"png": page((400, 300))})) == ["png is 800x600 px"]
    assert len(failed(ink("inkscape-export-png", "svg_png", {"png": page((800, 600), blank=True)}))) == 2
    assert len(failed(ink("inkscape-export-png", "svg_png", {}))) == 3


def test_text_with_another_wording_fails(tmp_path):
    good = SHAPES_SVG.replace("</svg>", '<text x="60" y="280"><tspan>Spring Sale</tspan></text></svg>')
    assert not failed(ink("inkscape-add-text", "svg_styled_text", {"drawing": svg(tmp_path, "t.svg", good)}))
    other = SHAPES_SVG.replace("</svg>", '<text x="60" y="280"><tspan>Spring sale!</tspan></text></svg>')
    assert failed(ink("inkscape-add-text", "svg_styled_text", {"drawing": svg(tmp_path, "o.svg", other)}))


# --- GIMP -----------------------------------------------------------------------------------------------------

def poster() -> Any:
    from PIL import Image

    return Image.open(DESIGN / "poster.png").convert("RGB")


def gimp(task_id: str, artifacts: Mapping[str, Path]) -> dict[str, str | None]:
    return milestones("gimp_adjusted", truth_of(GIMP_TASKS, task_id, "gimp_adjusted"), artifacts)


def saved(image: Any, path: Path, fmt: str = "PNG") -> Path:
    image.save(path, fmt)
    return path


needs_gimp_tasks = pytest.mark.skipif(not GIMP_TASKS, reason="tasks/gimp_more.json holds no tasks")


@needs_gimp_tasks
def test_desaturate_passes_and_the_untouched_or_inverted_picture_fails(tmp_path):
    from PIL import ImageOps

    from suites.prosoft.checks.gimp_more import transform_more

    good = saved(transform_more(poster(), [["desaturate"]]), tmp_path / "d.png")
    assert not failed(gimp("gimp-desaturate", {"image": good}))
    untouched = saved(poster(), tmp_path / "u.png")
    assert set(failed(gimp("gimp-desaturate", {"image": untouched}))) >= {"image is grayscale"}
    inverted = saved(ImageOps.invert(transform_more(poster(), [["desaturate"]])), tmp_path / "i.png")
    assert len(failed(gimp("gimp-desaturate", {"image": inverted}))) == 1


@needs_gimp_tasks
def test_brightness_of_another_amount_fails(tmp_path):
    from suites.prosoft.checks.gimp_more import transform_more

    assert not failed(gimp("gimp-brightness", {"image": saved(transform_more(poster(), [["brightness", 40]]), tmp_path / "b.png")}))
    result = gimp("gimp-brightness", {"image": saved(transform_more(poster(), [["brightness", 80]]), tmp_path / "c.png")})
    assert len(failed(result)) == 1 and "differs" in str(result)


@needs_gimp_tasks
def test_canvas_not_centred_or_scaled_instead_fails(tmp_path):
    from PIL import Image

    from suites.prosoft.checks.gimp_more import transform_more

    assert not failed(gimp("gimp-canvas-size", {"image": saved(transform_more(poster(), [["canvas", 360, 240, 30, 20]]), tmp_path / "c.png")}))
    corner = saved(transform_more(poster(), [["canvas", 360, 240, 0, 0]]), tmp_path / "k.png")
    assert len(failed(gimp("gimp-canvas-size", {"image": corner}))) == 1
    scaled = saved(poster().resize((360, 240), Image.Resampling.BICUBIC), tmp_path / "s.png")
    assert len(failed(gimp("gimp-canvas-size", {"image": scaled}))) == 1


@needs_gimp_tasks
def test_export_tiff_as_png_fails_the_format_and_a_missing_file_fails_all(tmp_path):
    assert not failed(gimp("gimp-export-tiff", {"image": saved(poster(), tmp_path / "p.tif", "TIFF")}))
    assert failed(gimp("gimp-export-tiff", {"image": saved(poster(), tmp_path / "p2.tif", "PNG")})) == [
        "image is a TIFF file"]
    result = gimp("gimp-export-tiff", {})
    assert len(failed(result)) == len(result)


@needs_gimp_tasks
def test_unsharp_needs_a_sharper_picture_and_blur_a_blurrier_one(tmp_path):
    from PIL import ImageFilter

    sharp = saved(poster().filter(ImageFilter.UnsharpMask(radius=3, percent=50, threshold=0)), tmp_path / "s.png")
    assert not failed(gimp("gimp-unsharp", {"image": sharp}))
    assert failed(gimp("gimp-unsharp", {"image": saved(poster(), tmp_path / "u.png")})) == ["image is sharpened"]
    blurred = saved(poster().filter(ImageFilter.GaussianBlur(5)), tmp_path / "b.png")
    assert not failed(gimp("gimp-gaussian-blur", {"image": blurred}))
    light = saved(poster().filter(ImageFilter.GaussianBlur(1)), tmp_path / "l.png")
    assert failed(gimp("gimp-gaussian-blur", {"image": light}))


@needs_gimp_tasks
def test_posterize_to_another_number_of_levels_fails(tmp_path):
    from suites.prosoft.checks.gimp_more import transform_more

    assert not failed(gimp("gimp-posterize", {"image": saved(transform_more(poster(), [["posterize", 4]]), tmp_path / "p.png")}))
    assert len(failed(gimp("gimp-posterize", {"image": saved(transform_more(poster(), [["posterize", 3]]), tmp_path / "q.png")}))) == 1
