"""The evaluators of the third round of GIMP and Avogadro tasks (checks/gimp_avo_round3.py: gimp_round3,
gamess_input) without docker, on the ground truths of tasks/gimp_avo_round3.json: the artifact each
demonstration makes passes every milestone, and each near miss (the right operation with a wrong parameter, an
unsaved change, a file of the wrong type under the expected name, no file) fails the milestone that should fail,
never with an evaluator error.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from suites.prosoft.templates import KINDS, TEMPLATES

from .evaluation import failed, milestones, truth_of

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures" / "prosoft"
TASKS = {t["id"]: t for t in json.loads((ROOT / "suites/prosoft/tasks/gimp_avo_round3.json").read_text())["tasks"]}


def test_every_task_has_a_known_kind_a_level_an_app_start_files_and_a_card():
    assert len(TASKS) == 14
    for task in TASKS.values():
        assert task["template"] in TEMPLATES and task["template"] in KINDS, task["id"]
        assert task["level"] in ("L1", "L2") and task["apps"] in (["gimp"], ["avogadro"]), task["id"]
        assert task["demonstration"]["actions"] and task["knowledge"], task["id"]
        assert all((ROOT / f["src"]).is_file() for f in task["start_files"]), task["id"]


def test_no_two_tasks_share_start_files_and_expected_result():
    seen: dict[str, str] = {}
    for task in TASKS.values():
        key = json.dumps([sorted(f["src"] for f in task["start_files"]), task["ground_truth"]], sort_keys=True)
        assert key not in seen, f"{task['id']} repeats {seen.get(key)}"
        seen[key] = task["id"]


# --- GIMP -------------------------------------------------------------------------------------------------------

def poster() -> Any:
    from PIL import Image

    return Image.open(FIX / "design" / "poster.png").convert("RGB")


def gimp(task_id: str, image: Path | None) -> dict[str, str | None]:
    return milestones("gimp_round3", truth_of(TASKS, task_id, "gimp_round3"), {"image": image} if image else {})


def saved(image: Any, path: Path, fmt: str = "PNG", **options: Any) -> Path:
    image.save(path, fmt, **options)
    return path


def rolled(image: Any, dx: int, dy: int) -> Any:
    from PIL import Image

    return Image.fromarray(np.roll(np.asarray(image), (dy, dx), axis=(0, 1)))


def cutout(image: Any) -> Any:
    """White taken out as GIMP's Color to Alpha does: alpha max(255 - c), colour un-premultiplied from white."""
    from PIL import Image

    rgb = np.asarray(image.convert("RGB"), float)
    alpha = (255 - rgb).max(axis=2, keepdims=True)
    safe = np.where(alpha > 0, alpha, 1) / 255
    colour = np.clip((rgb - 255 * (1 - safe)) / safe, 0, 255)
    return Image.fromarray(np.concatenate([colour, alpha], axis=2).round().astype("uint8"), "RGBA")


def test_missing_artifact_fails_every_milestone_of_every_gimp_task():
    for task_id, task in TASKS.items():
        if task["template"] == "gimp_round3":
            result = gimp(task_id, None)
            assert result and len(failed(result)) == len(result), task_id


def test_offset_by_half_passes_and_another_offset_or_the_untouched_picture_fails(tmp_path):
    assert not failed(gimp("gimp-offset-wrap", saved(rolled(poster(), 150, 100), tmp_path / "t.png")))
    result = gimp("gimp-offset-wrap", saved(rolled(poster(), 100, 50), tmp_path / "w.png"))
    assert len(failed(result)) == 1 and "differs" in str(result)
    assert len(failed(gimp("gimp-offset-wrap", saved(poster(), tmp_path / "u.png")))) == 1
    as_jpeg = saved(rolled(poster(), 150, 100), tmp_path / "tile.png", "JPEG", quality=95)
    assert "image is a PNG file" in failed(gimp("gimp-offset-wrap", as_jpeg))


def test_indexed_with_eight_colours_passes_and_256_colours_or_rgb_fail(tmp_path):
    from PIL import Image

    eight = poster().quantize(8, dither=Image.Dither.NONE)
    assert not failed(gimp("gimp-indexed-colours", saved(eight, tmp_path / "i.png")))
    full = poster().quantize(256, dither=Image.Dither.NONE)
    assert failed(gimp("gimp-indexed-colours", saved(full, tmp_path / "f.png"))) == [
        "image is indexed with at most 8 colours"]
    assert failed(gimp("gimp-indexed-colours", saved(poster(), tmp_path / "r.png"))) == [
        "image is indexed with at most 8 colours"]
    gray = poster().convert("L").quantize(8, dither=Image.Dither.NONE)
    assert len(failed(gimp("gimp-indexed-colours", saved(gray, tmp_path / "g.png")))) == 1  # colours lost


def test_crop_to_a_shrunk_selection_passes_and_another_inset_fails(tmp_path):
    assert not failed(gimp("gimp-crop-selection", saved(poster().crop((20, 20, 280, 180)), tmp_path / "c.png")))
    result = gimp("gimp-crop-selection", saved(poster().crop((10, 10, 290, 190)), tmp_path / "k.png"))
    assert set(failed(result)) == {"image is 260x160 px", "image shows design/poster.png after crop 20 20 280 180"}
    scaled = saved(poster().resize((260, 160)), tmp_path / "s.png")
    assert failed(gimp("gimp-crop-selection", scaled)) == ["image shows design/poster.png after crop 20 20 280 180"]


def test_print_resolution_passes_at_300_dpi_and_fails_at_72_or_resampled(tmp_path):
    assert not failed(gimp("gimp-print-resolution", saved(poster(), tmp_path / "p.png", dpi=(300, 300))))
    assert failed(gimp("gimp-print-resolution", saved(poster(), tmp_path / "q.png", dpi=(72, 72)))) == [
        "image is set to 300 dpi"]
    assert failed(gimp("gimp-print-resolution", saved(poster(), tmp_path / "n.png"))) == ["image is set to 300 dpi"]
    resampled = saved(poster().resize((1250, 833)), tmp_path / "r.png", dpi=(300, 300))
    assert len(failed(gimp("gimp-print-resolution", resampled))) == 2  # size and content


def test_color_to_alpha_passes_and_an_opaque_or_black_cut_out_fails(tmp_path):
    assert not failed(gimp("gimp-color-to-alpha", saved(cutout(poster()), tmp_path / "a.png")))
    assert failed(gimp("gimp-color-to-alpha", saved(poster(), tmp_path / "o.png"))) == [
        "image has white made transparent"]
    opaque = poster().convert("RGBA")
    assert failed(gimp("gimp-color-to-alpha", saved(opaque, tmp_path / "p.png"))) == [
        "image has white made transparent"]
    rgb = np.asarray(poster(), float)
    black = np.concatenate([rgb, rgb.max(axis=2, keepdims=True)], axis=2).astype("uint8")  # black taken out
    from PIL import Image

    result = gimp("gimp-color-to-alpha", saved(Image.fromarray(black, "RGBA"), tmp_path / "b.png"))
    assert "image has white made transparent" in failed(result)


def test_jpeg_quality_50_passes_and_90_or_a_png_fails(tmp_path):
    assert not failed(gimp("gimp-jpeg-quality", saved(poster(), tmp_path / "q.jpg", "JPEG", quality=50)))
    assert failed(gimp("gimp-jpeg-quality", saved(poster(), tmp_path / "d.jpg", "JPEG", quality=90))) == [
        "image has JPEG quality 50"]
    assert failed(gimp("gimp-jpeg-quality", saved(poster(), tmp_path / "n.jpg", "JPEG", quality=52))) == []
    assert failed(gimp("gimp-jpeg-quality", saved(poster(), tmp_path / "m.jpg", "JPEG", quality=60))) == [
        "image has JPEG quality 50"]
    assert set(failed(gimp("gimp-jpeg-quality", saved(poster(), tmp_path / "p.jpg")))) == {
        "image is a JPEG file", "image has JPEG quality 50"}


def test_jpeg_quality_estimate_matches_the_written_quality():
    import io

    from PIL import Image

    from suites.prosoft.checks.gimp_avo_round3 import jpeg_quality

    for quality in (10, 35, 50, 70, 90, 100):
        buffer = io.BytesIO()
        poster().save(buffer, "JPEG", quality=quality)
        assert jpeg_quality(Image.open(io.BytesIO(buffer.getvalue()))) == quality
    assert jpeg_quality(poster()) is None


def test_seamless_tile_needs_both_the_offset_and_the_quality(tmp_path):
    tile = rolled(poster(), 150, 100)
    assert not failed(gimp("gimp-seamless-tile-jpeg", saved(tile, tmp_path / "t.jpg", "JPEG", quality=70)))
    assert failed(gimp("gimp-seamless-tile-jpeg", saved(tile, tmp_path / "d.jpg", "JPEG", quality=90))) == [
        "image has JPEG quality 70"]
    assert len(failed(gimp("gimp-seamless-tile-jpeg", saved(poster(), tmp_path / "u.jpg", "JPEG", quality=70)))) == 1


def test_inset_indexed_needs_the_crop_and_the_palette(tmp_path):
    from PIL import Image

    inner = poster().crop((25, 25, 275, 175))
    assert not failed(gimp("gimp-inset-indexed", saved(inner.quantize(6, dither=Image.Dither.NONE), tmp_path / "i.png")))
    result = gimp("gimp-inset-indexed", saved(inner.quantize(8, dither=Image.Dither.NONE), tmp_path / "e.png"))
    assert failed(result) == ["image is indexed with at most 6 colours"]
    whole = saved(poster().quantize(6, dither=Image.Dither.NONE), tmp_path / "w.png")
    assert len(failed(gimp("gimp-inset-indexed", whole))) == 2  # size and content


def test_print_crop_needs_the_crop_and_150_dpi(tmp_path):
    inner = poster().crop((50, 50, 250, 150))
    assert not failed(gimp("gimp-print-crop", saved(inner, tmp_path / "p.png", dpi=(150, 150))))
    assert failed(gimp("gimp-print-crop", saved(inner, tmp_path / "q.png", dpi=(300, 300)))) == [
        "image is set to 150 dpi"]
    assert len(failed(gimp("gimp-print-crop", saved(poster(), tmp_path / "w.png", dpi=(150, 150))))) == 2


def test_cutout_tile_needs_the_transparency_and_the_offset(tmp_path):
    assert not failed(gimp("gimp-cutout-tile", saved(rolled(cutout(poster()), 150, 100), tmp_path / "c.png")))
    result = gimp("gimp-cutout-tile", saved(cutout(poster()), tmp_path / "n.png"))
    assert set(failed(result)) == {"image shows design/poster.png after offset 150 100",
                                   "image has white made transparent"}
    assert failed(gimp("gimp-cutout-tile", saved(rolled(poster(), 150, 100), tmp_path / "o.png"))) == [
        "image has white made transparent"]


def test_an_unknown_alpha_spec_is_a_ground_truth_error():
    with pytest.raises(ValueError):
        KINDS["gimp_round3"](object(), {"source": "design/poster.png", "alpha": "black"})


# --- Avogadro: GAMESS inputs ------------------------------------------------------------------------------------

def atoms(name: str) -> list[tuple[str, float, float, float]]:
    from suites.prosoft.checks.avogadro import read_molecule

    path = FIX / "imaging" / name
    return read_molecule(path, path.suffix.lstrip(".")).atoms


Z = {"H": 1, "C": 6, "O": 8, "S": 16}


def gamess(path: Path, mol: list[tuple[str, float, float, float]], contrl: str, basis: str = "GBASIS=N21 NGAUSS=3",
           extra: str = "") -> Path:
    """A GAMESS input as Avogadro's generator writes it."""
    lines = ["! test", f" $BASIS {basis} $END", *([extra] if extra else []), f" $CONTRL {contrl} $END", "",
             " $DATA", "Title", "C1"]
    lines += [f"{e:<5}{Z[e]:>4.1f} {x:10.5f} {y:10.5f} {z:10.5f}" for e, x, y, z in mol]
    path.write_text("\n".join([*lines, " $END", ""]))
    return path


def avo(task_id: str, path: Path | None) -> dict[str, str | None]:
    return milestones("gamess_input", truth_of(TASKS, task_id, "gamess_input"), {"input": path} if path else {})


DFT = "SCFTYP=RHF RUNTYP={} ICHARG=0 MULT=1 DFTTYP=B3LYP"


def test_gamess_optimisation_passes_and_a_single_point_fails_only_runtyp(tmp_path):
    good = gamess(tmp_path / "o.inp", atoms("ethanol.xyz"), DFT.format("OPTIMIZE"))
    assert not failed(avo("avogadro-gamess-optimize", good))
    energy = gamess(tmp_path / "e.inp", atoms("ethanol.xyz"), DFT.format("ENERGY"))
    assert failed(avo("avogadro-gamess-optimize", energy)) == ["input sets RUNTYP=OPTIMIZE"]


def test_gamess_input_of_another_molecule_or_an_xyz_file_under_its_name_fails(tmp_path):
    moved = [(e, x + 1.0, y, z) for e, x, y, z in atoms("ethanol.xyz")]
    result = avo("avogadro-gamess-optimize", gamess(tmp_path / "m.inp", moved, DFT.format("OPTIMIZE")))
    assert failed(result) == ["input keeps the atoms of ethanol.xyz"]
    acid = avo("avogadro-gamess-optimize", gamess(tmp_path / "a.inp", atoms("acetic_acid.xyz"), DFT.format("OPTIMIZE")))
    assert set(failed(acid)) == {"input formula C2H6O", "input keeps the atoms of ethanol.xyz"}
    xyz = tmp_path / "x.inp"
    xyz.write_text((FIX / "imaging" / "ethanol.xyz").read_text())
    result = avo("avogadro-gamess-optimize", xyz)
    assert len(failed(result)) == len(result) and "no $DATA" in str(result)
    result = avo("avogadro-gamess-optimize", None)
    assert len(failed(result)) == len(result)


def test_gamess_frequencies_need_rhf_the_basis_and_the_hydrogens(tmp_path):
    ethanol = atoms("ethanol.xyz")  # ethanol_heavy.mol's heavy atoms with hydrogens added
    rhf = "SCFTYP=RHF RUNTYP=HESSIAN ICHARG=0 MULT=1"
    basis = "GBASIS=N31 NGAUSS=6 NDFUNC=1"
    assert not failed(avo("avogadro-gamess-frequencies", gamess(tmp_path / "f.inp", ethanol, rhf, basis)))
    dft = avo("avogadro-gamess-frequencies", gamess(tmp_path / "d.inp", ethanol, rhf + " DFTTYP=B3LYP", basis))
    assert failed(dft) == ["input sets none of DFTTYP"]
    small = avo("avogadro-gamess-frequencies", gamess(tmp_path / "s.inp", ethanol, rhf))
    assert set(failed(small)) == {"input sets GBASIS=N31", "input sets NGAUSS=6", "input sets NDFUNC=1"}
    heavy = [a for a in ethanol if a[0] != "H"]
    assert failed(avo("avogadro-gamess-frequencies", gamess(tmp_path / "h.inp", heavy, rhf, basis))) == [
        "input formula C2H6O"]


def test_gamess_in_water_needs_the_solvent(tmp_path):
    acid = atoms("acetic_acid.xyz")
    water = gamess(tmp_path / "w.inp", acid, DFT.format("OPTIMIZE"), extra=" $PCM SOLVNT=WATER $END")
    assert not failed(avo("avogadro-gamess-water", water))
    gas = gamess(tmp_path / "g.inp", acid, DFT.format("OPTIMIZE"))
    assert failed(avo("avogadro-gamess-water", gas)) == ["input sets SOLVNT=WATER"]


# --- Avogadro: LAMMPS input ---------------------------------------------------------------------------------------

LAMMPS = """# LAMMPS Input file generated by Avogadro
# Title

# Initialization
units          real
dimension      3d
boundary       p p p
atom_style     full

# Atom Definition
replicate      1 1 1


# Settings
velocity       all create 298.15 4928459 rot yes mom yes dist gaussian
fix            ensemble all nvt temp 298.15 298.15 100 tchain 1

timestep       2.0

# Output
thermo_style   one
thermo         50

# Run the simulation
run            {steps}
"""


def lammps(task_id: str, path: Path | None) -> dict[str, str | None]:
    return milestones("lammps_input", truth_of(TASKS, task_id, "lammps_input"), {"input": path} if path else {})


def test_lammps_input_of_1000_steps_passes_and_the_default_50_steps_fails(tmp_path):
    good = tmp_path / "ethanol.lmp"
    good.write_text(LAMMPS.format(steps=1000))
    assert not failed(lammps("avogadro-lammps-md", good))
    default = tmp_path / "job.lmp"
    default.write_text(LAMMPS.format(steps=50))
    assert failed(lammps("avogadro-lammps-md", default)) == ["input: run 1000"]
    npt = tmp_path / "npt.lmp"
    npt.write_text(LAMMPS.format(steps=1000).replace(" nvt ", " npt "))
    assert failed(lammps("avogadro-lammps-md", npt)) == ["input has a fix with nvt"]


def test_lammps_check_on_a_gamess_file_or_no_file_fails_every_milestone(tmp_path):
    other = gamess(tmp_path / "ethanol.lmp", atoms("ethanol.xyz"), DFT.format("OPTIMIZE"))
    result = lammps("avogadro-lammps-md", other)
    assert len(failed(result)) == len(result) and "not a LAMMPS input" in str(result)
    result = lammps("avogadro-lammps-md", None)
    assert len(failed(result)) == len(result)
