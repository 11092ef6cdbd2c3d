"""The second round of circuit and chemistry evaluators without docker (checks/circuit_more.py: spice_values,
spice_raw, kicad_sim_csv, spice_netlist, kicad_fields, kicad_erc; checks/chem_more.py: chem_charge,
chem_transform, chem_name, chem_svg, chem_align) on the tasks of suites/prosoft/tasks/circuit_more.json and
chem_more.json: for every task the right artifact passes, and near misses fail the milestones that name them:

- ``wrong-param``: the right operation with a wrong parameter (another resistor, another step, a charge on the
  wrong atom, a mirror the other way, a binary raw file where ASCII was asked);
- ``wrong-place``: the file saved elsewhere (missing where the task asks);
- ``unsaved``: the start file as it was (what noop leaves);
- ``wrong-type``: another kind of file under the expected name (a PNG, an empty file, a schematic as the netlist);
- ``equivalent``: the same result written another way (a value as 7k15 instead of 7.15k, a CSV with a header row
  and a row per point, a molfile with an ``M  CHG`` line), which must pass.

The artifacts are written as the programs write them (checked against the files the replay runs saved):
ngspice 39's ``print`` (``name = value``), ``wrdata`` (x y pairs) and raw files (ASCII or binary); KiCad 6.0.11's
simulator CSV (``;``-separated, a row per signal: ``Time;0;1e-05;...`` then ``V(/out);0;...``, an AC sweep's
``V(/out) (mag)`` in dB and ``V(/out) (phase)``), its SPICE netlist (``V1 /in GND dc ...``) and ERC report;
BKChem's CDML (``fixtures/prosoft/chem/make_fixtures.py``), its V2000 molfile (charges in the atom block) and SVG.
The near-miss cases also run through ``test_near_misses.check_case`` (the real templates, pipelines included).
"""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path
from typing import Callable, Mapping, Sequence

import pytest

from suites.prosoft.checks import chem, chem_more, circuit_more
from suites.prosoft.make import circuit_more as circuit_tasks

from .evaluation import failed, milestones, truth_of
from .test_near_misses import ALL, Case, check_case, copy, empty, png_file, text

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures" / "prosoft"
MORE = FIX / "multisim_chem_more"
TASKS = {t["id"]: t for name in ("circuit_more", "chem_more")
         for t in json.loads((ROOT / f"suites/prosoft/tasks/{name}.json").read_text())["tasks"]}


FX = circuit_tasks.FX  # fixtures/prosoft/multisim_chem_more/make_fixtures.py, as the generator loads it
CHEM = FX.CHEM


def run(task_id: str, kind: str, artifacts: Mapping[str, Path]) -> dict[str, str | None]:
    return milestones(kind, truth_of(TASKS, task_id, kind), artifacts)


# --- builders ------------------------------------------------------------------------------------------------------

def printed(path: Path, **values: float) -> Path:
    """What ngspice's ``print a b > FILE`` writes (one ``name = value`` line each); keys with ``_at_`` etc. as
    given (pass names with parentheses through ``**{...}``)."""
    return text(path, "".join(f"{k} = {v:e}\n" for k, v in values.items()))


def wrdata(path: Path, xs: Sequence[float], f: Callable[[float], float]) -> Path:
    return text(path, "".join(f" {x:e}  {f(x):e} \n" for x in xs))


def steps(stop: float, step: float, start: float = 0.0) -> list[float]:
    return [start + i * step for i in range(int(round((stop - start) / step)) + 1)]


def decades(lo: float, hi: float, per: int) -> list[float]:
    n = int(round(math.log10(hi / lo) * per))
    return [lo * 10 ** (i / per) for i in range(n + 1)]


def raw(path: Path, xs: Sequence[float], ys: Sequence[float], plot: str = "Transient Analysis",
        names: tuple[str, str] = ("time", "v(out)"), binary: bool = False) -> Path:
    """An ngspice raw file of one real vector over its scale, as ``write`` makes it (ASCII or binary)."""
    head = (f"Title: * rc low-pass filter\nDate: Mon Dec  7 01:20:02  2026\nPlotname: {plot}\nFlags: real\n"
            f"No. Variables: 2\nNo. Points: {len(xs)}\nVariables:\n\t0\t{names[0]}\ttime\n\t1\t{names[1]}\tvoltage\n")
    if binary:
        body = b"".join(struct.pack("<dd", x, y) for x, y in zip(xs, ys))
        path.write_bytes((head + "Binary:\n").encode() + body)
    else:
        path.write_text(head + "Values:\n" + "".join(f" {k}\t{x:.15e}\n\t{y:.15e}\n\n"
                                                     for k, (x, y) in enumerate(zip(xs, ys))))
    return path


def sim_csv(path: Path, xs: Sequence[float], signals: Mapping[str, Callable[[float], float]],
            per_point: bool = False, scale: str = "Time") -> Path:
    """What KiCad 6.0.11's simulator writes with File > Save as .csv File: a row per signal (``per_point``: a
    header row and a row per point, as later versions write)."""
    if per_point:
        rows = [[scale, *signals]] + [[f"{x:g}", *(f"{f(x):g}" for f in signals.values())] for x in xs]
    else:
        rows = [[scale, *(f"{x:g}" for x in xs)]] + [[name, *(f"{f(x):g}" for x in xs)] for name, f in signals.items()]
    return text(path, "".join(";".join(r) + ";\r\n" for r in rows))


def spice_netlist(path: Path, r1: str = "1k", c1: str = "1u", out: str = "/out") -> Path:
    return text(path, f".title KiCad schematic\nV1 /in GND {FX.RC_STEP_SOURCE}\nR1 /in {out} {r1}\nC1 {out} GND {c1}\n"
                      ".end\n")


def schematic(path: Path, name: str = "rc_sim", values: Mapping[str, str] = (), footprints: Mapping[str, str] = ()
              ) -> Path:
    """A simulator schematic with parts' values and footprints changed (property and instance alike)."""
    sch = (MORE / f"{name}.kicad_sch").read_text()
    for ref, value in dict(values).items():
        old = next(v for r, _, v, *_ in FX.SIM_PARTS[name] if r == ref)
        sch = sch.replace(f'(property "Value" "{old}" (id 1)', f'(property "Value" "{value}" (id 1)', 1)
        sch = sch.replace(f'(reference "{ref}") (unit 1) (value "{old}")', f'(reference "{ref}") (unit 1) (value "{value}")')
    for ref, footprint in dict(footprints).items():
        x, y = next((x, y) for r, _, _, x, y, *_ in FX.SIM_PARTS[name] if r == ref)
        sch = sch.replace(f'(property "Footprint" "" (id 2) (at {x:g} {y:g} 0)',
                          f'(property "Footprint" "{footprint}" (id 2) (at {x:g} {y:g} 0)', 1)
    return text(path, sch)


def board(path: Path, *vias: tuple[float, float], net: int = 0, layers: str = '"F.Cu" "B.Cu"') -> Path:
    """The engineering tasks' divider.kicad_pcb with vias added as pcbnew 6 saves a free via."""
    pcb = (FIX / "engineering" / "divider.kicad_pcb").read_text().rstrip()
    assert pcb.endswith(")")
    added = "".join(f'  (via (at {x:g} {y:g}) (size 0.8) (drill 0.4) (layers {layers}) (free) (net {net}) '
                    f'(tstamp 7a093753-1a76-474f-b7fe-a22db60645f{k}))\n' for k, (x, y) in enumerate(vias))
    return text(path, pcb[:-1] + added + ")\n")


ERC_RPT = """ERC report (Mon Dec  7 01:48:28 2026, Encoding UTF8)

***** Sheet /
[power_pin_not_driven]: Input Power pin not driven by any Output Power pins
    ; Severity: error
    @(76.20 mm, 82.55 mm): Symbol #PWR01 [GND] Pin 1 [GND, Power input, Line]
[lib_symbol_issues]: The current configuration does not include the library 'power'.
    ; Severity: warning
    @(76.20 mm, 82.55 mm): Symbol #PWR01 [GND]
[lib_symbol_issues]: The current configuration does not include the library 'Device'.
    ; Severity: warning
    @(76.20 mm, 76.20 mm): Symbol V1 [VSOURCE]

 ** ERC messages: 3  Errors 1  Warnings 2
"""


def cdml(path: Path, atoms: list[tuple[str, float, float]], bonds: list[tuple[int, int, int]],
         charges: Mapping[int, int] = (), name: str = "") -> Path:
    """BKChem's CDML of one molecule, with charges (``charge`` attributes and their plus/minus marks) and a name."""
    out = CHEM.cdml(atoms, bonds).replace('<molecule name=""', f'<molecule name="{name}"')
    for k, charge in dict(charges).items():
        out = out.replace(f'<atom id="atom{k + 1}" ', f'<atom id="atom{k + 1}" charge="{charge}" ', 1)
    return text(path, out)


def molfile(path: Path, atoms: list[tuple[str, float, float]], bonds: list[tuple[int, int, int]],
            charges: Mapping[int, int] = (), m_chg: bool = False) -> Path:
    """BKChem's V2000 molfile: charges in the atom block (3 = +1, 5 = -1), or (``m_chg``) an ``M  CHG`` line."""
    code = {1: 3, -1: 5}
    lines = ["", "", "", f"{len(atoms):3d}{len(bonds):3d}  0  0  0  0  0  0  0  0999 V2000"]
    for k, (e, x, y) in enumerate(atoms):
        c = 0 if m_chg else code.get(dict(charges).get(k, 0), 0)
        lines.append(f"{x * 39.4:10.4f}{y * 39.4:10.4f}{0.0:10.4f} {e:<3} 0{c:3d}  0  0  0  0  0  0  0  0  0  0")
    lines += [f"{i + 1:3d}{j + 1:3d}{o:3d}  0  0  0  0" for i, j, o in bonds]
    if m_chg and charges:
        lines.append("M  CHG" + f"{len(dict(charges)):3d}" + "".join(f"{k + 1:4d}{c:4d}" for k, c in dict(charges).items()))
    return text(path, "\n".join(lines + ["M  END", ""]))


def bkchem_svg(path: Path, bonds: int, labels: Sequence[str] = ()) -> Path:
    lines = "".join(f'<g stroke-width="1.0" stroke="#000000"><line x1="{10 * k}" y1="0" x2="{10 * k + 8}" y2="5"/></g>'
                    for k in range(bonds))
    texts = "".join(f'<text x="199" y="162" font-family="helvetica" fill="#000000">{t}</text>' for t in labels)
    return text(path, '<?xml version="1.0" encoding="utf-8"?><svg xmlns="http://www.w3.org/2000/svg" version="1.0" '
                      f'width="210mm" height="297mm"><g font-size="12pt">{lines}{texts}</g></svg>')


PROPYLAMINE = CHEM.chain("CCCN")
CHAIN3 = [(0, 1, 1), (1, 2, 1), (2, 3, 1)]


def mirrored(atoms: list[tuple[str, float, float]], axis: str = "x", shift: float = 0.11
             ) -> list[tuple[str, float, float]]:
    xs, ys = [a[1] for a in atoms], [a[2] for a in atoms]
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    if axis == "x":
        return [(e, round(2 * cx - x + shift, 3), y) for e, x, y in atoms]
    return [(e, x, round(2 * cy - y, 3)) for e, x, y in atoms]


def two_chains(path: Path, dy_second: float = -2.006) -> Path:
    """two_chains.cdml with the butane moved by ``dy_second`` cm (-2.006: its top on the ethane's, as Align > Top
    leaves it, 0.006 cm off)."""
    (ethane, b1), (butane, b2) = FX.PAIRS["two_chains"]
    moved = [(e, x, round(y + dy_second, 3)) for e, x, y in butane]
    return text(path, FX.cdml_many([(ethane, b1), (moved, b2)]))


# --- readers -------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("value, number", [("4.7k", 4700), ("4k7", 4700), ("7k15", 7150), ("2.2u", 2.2e-6),
                                           ("1Meg", 1e6), ("1m", 1e-3), ("100nF", 1e-7), ("330", 330), ("10 k", 1e4)])
def test_spice_numbers(value: str, number: float) -> None:
    assert circuit_more.spice_number(value) == pytest.approx(number)


@pytest.mark.parametrize("value", ["abc", "dc 12", "4.7k7", "", "1e3k5"])
def test_not_spice_numbers(value: str) -> None:
    assert circuit_more.spice_number(value) is None


def test_raw_files_ascii_and_binary(tmp_path: Path) -> None:
    xs = steps(5e-3, 1e-4)
    ys = [FX.rc_step(t) for t in xs]
    for binary in (False, True):
        got = circuit_more.parse_raw(raw(tmp_path / f"r{binary}.raw", xs, ys, binary=binary).read_bytes())
        assert got["ascii"] is not binary and got["plot"] == "Transient Analysis"
        assert got["variables"] == ["time", "v(out)"] and got["columns"][1] == pytest.approx(ys)


def test_sim_csv_both_layouts(tmp_path: Path) -> None:
    xs = steps(12, 0.5)
    for per_point in (False, True):
        scale, series = circuit_more.parse_sim_csv(
            sim_csv(tmp_path / "s.csv", xs, {"V(/out)": FX.divider}, per_point=per_point).read_text())
        assert scale == "Time" and series["V(/out)"][-1] == pytest.approx(FX.divider(12), rel=1e-5)


def test_erc_report_reader() -> None:
    got = circuit_more.parse_erc_report(ERC_RPT)
    assert (got["errors"], got["warnings"]) == (1, 2)
    assert [v[0] for v in got["violations"]] == ["power_pin_not_driven", "lib_symbol_issues", "lib_symbol_issues"]


def test_erc_violations_on_a_named_symbol(tmp_path: Path) -> None:
    truth = {"artifact": "report", "violations": {"power_pin_not_driven": "#PWR01", "lib_symbol_issues": "C1"}}
    result = milestones("kicad_erc", truth, {"report": text(tmp_path / "erc.rpt", ERC_RPT)})
    assert failed(result) == ["report lists lib_symbol_issues on C1"]
    assert "not C1" in str(result["report lists lib_symbol_issues on C1"])


def test_molfile_atom_block_charges(tmp_path: Path) -> None:
    path = molfile(tmp_path / "a.mol", PROPYLAMINE, CHAIN3, {3: 1})
    assert chem.molfile_atom_charges(path.read_text()) == {3: 1}
    assert chem.read_graph(path, "mol").charges == {3: 1}


# --- every task: the right artifact passes, the start file (noop) fails ------------------------------------------

def right_artifacts(t: Path) -> dict[str, dict[str, Path]]:
    """For each task, artifacts as its replay writes them."""
    rc = lambda tau: (lambda x: FX.rc_step(x, tau))  # noqa: E731
    return {
        "circuit-tf-divider": {"tf": printed(t / "tf.txt", **{"transfer_function": 0.3197279,
                                                              "output_impedance_at_v(out)": 3197.279})},
        "circuit-pz-rc": {"pole": text(t / "pole.txt", "pole(1) = -1.00000e+03,0.000000e+00\n")},
        "circuit-sweep-resistor": {"data": wrdata(t / "r.txt", steps(20e3, 1e3, 1e3), lambda r: FX.divider(12, r2=r))},
        "circuit-write-raw": {"raw": raw(t / "s.raw", steps(5e-3, 1e-5), [FX.rc_step(x) for x in steps(5e-3, 1e-5)])},
        "circuit-rlc-bandwidth": {"bw": printed(t / "bw.txt", bw=1587.5)},
        "circuit-design-corner": {"corner": printed(t / "fc.txt", fc=997.66)},
        "circuit-source-power": {"power": printed(t / "p.txt", p=9.795918e-03)},
        "circuit-rlc-damped": {"data": wrdata(t / "rlc.txt", decades(1e3, 2e4, 50), lambda f: rlc_db(f, 300))},
        "circuit-led-sweep": {"data": wrdata(t / "iv.txt", steps(5, 0.05), led_iv)},
        "kicad-sim-transient": {"data": sim_csv(t / "step.csv", steps(5e-3, 1e-5), {"V(/out)": FX.rc_step})},
        "kicad-sim-dc-sweep": {"data": sim_csv(t / "sweep.csv", steps(12, 0.5), {"V(/out)": FX.divider})},
        "kicad-sim-ac-bode": {"data": sim_csv(t / "bode.csv", decades(10, 1e5, 20),
                                              {"V(/out) (mag)": FX.rc_gain_db, "V(/out) (phase)": lambda f: -45.0})},
        "kicad-sch-footprint": {"schematic": schematic(t / "fp.kicad_sch", footprints={
            "R1": "Resistor_SMD:R_0805_2012Metric"})},
        "kicad-pcb-via": {"board": board(t / "v.kicad_pcb", (121.92, 119.38))},
        "kicad-erc-report": {"report": text(t / "erc.rpt", ERC_RPT)},
        "kicad-sim-edit-transient": {"schematic": schematic(t / "e.kicad_sch", values={"C1": "2.2u"}),
                                     "data": sim_csv(t / "s2.csv", steps(10e-3, 1e-5), {"V(/out)": rc(2.2e-3)})},
        "kicad-sim-design-divider": {
            "schematic": schematic(t / "d.kicad_sch", "divider_sim", values={"R2": "7.15k"}),
            "data": sim_csv(t / "d.csv", steps(12, 0.5), {"V(/out)": lambda v: FX.divider(v, r2=7150)})},
        "kicad-spice-netlist-value": {"schematic": schematic(t / "v.kicad_sch", values={"R1": "2.2k"}),
                                      "netlist": spice_netlist(t / "v.cir", r1="2.2k")},
        "kicad-sim-edit-ac": {"schematic": schematic(t / "a.kicad_sch", values={"R1": "10k"}),
                              "data": sim_csv(t / "a.csv", decades(1, 1e4, 20),
                                              {"V(/out) (mag)": lambda f: FX.rc_gain_db(f, 10e-3)})},
        "chem-template-ethylbenzene": {"molecule": cdml(t / "eb.cdml", ethylbenzene(), ETHYLBENZENE_BONDS)},
        "chem-charge-ammonium": {"molecule": cdml(t / "am.cdml", PROPYLAMINE, CHAIN3, {3: 1})},
        "chem-molecule-name": {"molecule": cdml(t / "hx.cdml", *FX.MOLECULES["hexane"], name="n-hexane")},
        "chem-export-svg": {"drawing": bkchem_svg(t / "e.svg", 2, ["O"])},
        "chem-mirror": {"molecule": cdml(t / "mi.cdml", mirrored(PROPYLAMINE), CHAIN3)},
        "chem-ethylbenzene-molfile": {"molecule": cdml(t / "eb2.cdml", ethylbenzene(), ETHYLBENZENE_BONDS),
                                      "mol": molfile(t / "eb.mol", ethylbenzene(), ETHYLBENZENE_BONDS)},
        "chem-ammonium-molfile": {"molecule": cdml(t / "am2.cdml", PROPYLAMINE, CHAIN3, {3: 1}),
                                  "mol": molfile(t / "am.mol", PROPYLAMINE, CHAIN3, {3: 1})},
        "chem-ethoxide": {"molecule": cdml(t / "eo.cdml", CHEM.chain("CCO"), CHAIN3[:2], {2: -1})},
        "chem-cyclohexane-named": {"molecule": cdml(t / "ch.cdml", RING, RING_BONDS, name="cyclohexane")},
        "chem-align-top-svg": {"molecule": two_chains(t / "two.cdml"), "drawing": bkchem_svg(t / "c.svg", 4)},
        "chem-acetamide-svg": {"molecule": cdml(t / "ac.cdml", ACETAMIDE, ACETAMIDE_BONDS),
                               "drawing": bkchem_svg(t / "ac.svg", 4, ["O", "NH2"])},
    }


def rlc_db(f: float, r: float) -> float:
    w = 2 * math.pi * f
    return -10 * math.log10(1 + ((w * FX.RLC_L - 1 / (w * FX.RLC_C)) / r) ** 2)


def led_iv(v: float) -> float:
    """The LED's current over V1 (rough Shockley curve through the task's operating point at 5 V)."""
    i5 = 0.0093863
    return max(0.0, i5 * (v - 1.8) / 3.2) if v > 1.8 else 0.0


RING = [("C", 7.0 + 0.7 * math.cos(math.radians(a)), 5.0 + 0.7 * math.sin(math.radians(a))) for a in range(0, 360, 60)]
RING_BONDS = [(k, (k + 1) % 6, 1) for k in range(6)]
ETHYLBENZENE_BONDS = CHAIN3[:2] + [(2, 3, 2), (3, 4, 1), (4, 5, 2), (5, 6, 1), (6, 7, 2), (7, 2, 1)]
ACETAMIDE = [("C", 4.0, 4.0), ("C", 4.6, 3.65), ("O", 4.6, 2.95), ("N", 5.2, 4.0)]
ACETAMIDE_BONDS = [(0, 1, 1), (1, 2, 2), (1, 3, 1)]


def ethylbenzene() -> list[tuple[str, float, float]]:
    """propane's three carbons, the third one of a benzene ring (as BKChem's template builds it)."""
    c3 = CHEM.chain("CCC")
    x, y = c3[2][1:]
    ring = [("C", round(x + 0.7 + 0.7 * math.cos(math.radians(180 + 60 * k)), 3),
             round(y + 0.7 * math.sin(math.radians(180 + 60 * k)), 3)) for k in range(1, 6)]
    return c3 + ring


def test_every_task_passes_with_its_artifacts(tmp_path: Path) -> None:
    arts = right_artifacts(tmp_path)
    assert set(arts) == set(TASKS)
    for task_id, artifacts in arts.items():
        task = TASKS[task_id]
        kinds = ([s["template"] for s in task["ground_truth"]["steps"]] if task["template"] == "pipeline"
                 else [task["template"]])
        for kind in kinds:
            result = run(task_id, kind, artifacts)
            assert result and not failed(result), (task_id, kind, {k: v for k, v in result.items() if v})


def test_start_files_pass_no_task(tmp_path: Path) -> None:
    """noop's outcome: nothing written fails every milestone of every task; the start file left as it was (where
    a task saves over it) fails each step that checks an edit of it."""
    edits = {"kicad_sch", "kicad_fields", "kicad_via", "chem_charge", "chem_transform", "chem_name", "chem_align",
             "chem_extend"}
    for task_id, task in TASKS.items():
        kinds = ([s["template"] for s in task["ground_truth"]["steps"]] if task["template"] == "pipeline"
                 else [task["template"]])
        starts = {name: ROOT / f["src"] for f in task["start_files"] for name, dest in task["artifacts"].items()
                  if f["dest"] == dest}
        for kind in kinds:
            assert all(run(task_id, kind, {}).values()), (task_id, kind)
            if starts and kind in edits:
                assert failed(run(task_id, kind, starts)), (task_id, kind)


# --- near misses of every new kind (the real templates, through test_near_misses' runner) -----------------------

def rc_csv(t: Path, f: Callable[[float], float] = FX.rc_step, stop: float = 5e-3, signal: str = "V(/out)",
           per_point: bool = False) -> dict[str, Path]:
    return {"data": sim_csv(t / "step.csv", steps(stop, 1e-5), {signal: f}, per_point=per_point)}


def value_and_netlist(t: Path, netlist: Path) -> dict[str, Path]:
    return {"schematic": schematic(t / "s.kicad_sch", values={"R1": "2.2k"}), "netlist": netlist}


TF = {"transfer_function": 0.3197279, "output_impedance_at_v(out)": 3197.279}
RAW_XS = steps(5e-3, 1e-5)
CASES: list[Case] = [
    # spice_values (tf)
    Case("spice_values/correct", "correct", lambda t: {"tf": printed(t / "tf.txt", **TF)}, set(),
         task="circuit-tf-divider"),
    Case("spice_values/wrong-param: R2 10k", "wrong-param",
         lambda t: {"tf": printed(t / "tf.txt", **{"transfer_function": 0.5, "output_impedance_at_v(out)": 5000.0})},
         ALL, task="circuit-tf-divider"),
    Case("spice_values/one vector left out", "wrong-param",
         lambda t: {"tf": printed(t / "tf.txt", transfer_function=0.3197279)},
         {"tf output_impedance_at_v(out) = 3197.28"}, task="circuit-tf-divider", says="no value of"),
    Case("spice_values/wrong-place", "wrong-place", lambda t: {}, ALL, task="circuit-tf-divider", says="not produced"),
    Case("spice_values/wrong-type: a PNG", "wrong-type", lambda t: {"tf": png_file(t / "tf.txt")}, ALL,
         task="circuit-tf-divider", says="tf"),
    Case("spice_values/equivalent: the pole's real part alone", "equivalent",
         lambda t: {"pole": text(t / "pole.txt", "pole(1) = -9.99e+02,0.0e+00\n")}, set(), task="circuit-pz-rc"),
    # spice_raw
    Case("spice_raw/correct", "correct",
         lambda t: {"raw": raw(t / "s.raw", RAW_XS, [FX.rc_step(x) for x in RAW_XS])}, set(), task="circuit-write-raw"),
    Case("spice_raw/wrong-param: binary", "wrong-param",
         lambda t: {"raw": raw(t / "s.raw", RAW_XS, [FX.rc_step(x) for x in RAW_XS], binary=True)},
         {"raw is an ngspice raw file in ASCII"}, task="circuit-write-raw", says="binary"),
    Case("spice_raw/wrong-param: an AC sweep", "wrong-param",
         lambda t: {"raw": raw(t / "s.raw", decades(10, 1e5, 10), [-1.0] * 41, plot="AC Analysis",
                               names=("frequency", "v(out)"))},
         {"raw holds a Transient Analysis", "raw covers 0 .. 0.005", "raw passes (0.001, 3.161)",
          "raw passes (0.002, 4.323)", "raw passes (0.005, 4.966)"}, task="circuit-write-raw"),
    Case("spice_raw/wrong-place", "wrong-place", lambda t: {}, ALL, task="circuit-write-raw"),
    Case("spice_raw/wrong-type: wrdata's text", "wrong-type",
         lambda t: {"raw": wrdata(t / "s.raw", RAW_XS, FX.rc_step)}, ALL, task="circuit-write-raw",
         says="not an ngspice raw file"),
    # kicad_sim_csv
    Case("kicad_sim_csv/correct", "correct", rc_csv, set(), task="kicad-sim-transient"),
    Case("kicad_sim_csv/equivalent: a header row, a row per point", "equivalent",
         lambda t: rc_csv(t, per_point=True), set(), task="kicad-sim-transient"),
    Case("kicad_sim_csv/wrong-param: stopped at 2 ms", "wrong-param", lambda t: rc_csv(t, stop=2e-3),
         {"data covers 0 .. 0.005", "data passes (0.003, 4.751)", "data passes (0.005, 4.966)"},
         task="kicad-sim-transient"),
    Case("kicad_sim_csv/wrong-param: V(/in) plotted", "wrong-param",
         lambda t: rc_csv(t, lambda x: 5.0, signal="V(/in)"), ALL, task="kicad-sim-transient", says="no signal V(/out)"),
    Case("kicad_sim_csv/wrong-place", "wrong-place", lambda t: {}, ALL, task="kicad-sim-transient"),
    Case("kicad_sim_csv/wrong-type: a PNG (Save as Image)", "wrong-type", lambda t: {"data": png_file(t / "step.csv")},
         ALL, task="kicad-sim-transient", says="data"),
    Case("kicad_sim_csv/wrong-param: linear magnitude", "wrong-param",
         lambda t: {"data": sim_csv(t / "b.csv", decades(10, 1e5, 20),
                                    {"V(/out) (mag)": lambda f: 10 ** (FX.rc_gain_db(f) / 20)})},
         {"data passes (10, -0.017)", "data passes (100, -1.445)", "data passes (159.15, -3.01)",
          "data passes (1000, -16.07)", "data passes (10000, -35.97)"}, task="kicad-sim-ac-bode"),
    # spice_netlist (the pipeline's second step: R1 changed to 2.2k, saved, the SPICE netlist exported)
    Case("spice_netlist/correct", "correct", lambda t: value_and_netlist(t, spice_netlist(t / "rc.cir", r1="2.2k")),
         set(), task="kicad-spice-netlist-value"),
    Case("spice_netlist/equivalent: node 0, 2200 and 1e-6", "equivalent",
         lambda t: value_and_netlist(t, text(t / "rc.cir", f"* rc\nV1 in 0 {FX.RC_STEP_SOURCE}\nR1 in out 2200\n"
                                                            "C1 out 0 1e-6\n.end\n")),
         set(), task="kicad-spice-netlist-value"),
    Case("spice_netlist/unsaved: exported before the change", "unsaved",
         lambda t: value_and_netlist(t, spice_netlist(t / "rc.cir")), {"netlist R1 in out 2.2k"},
         task="kicad-spice-netlist-value"),
    Case("spice_netlist/wrong-param: C1 across in", "wrong-param",
         lambda t: value_and_netlist(t, text(t / "rc.cir", f".title x\nV1 /in GND {FX.RC_STEP_SOURCE}\n"
                                                           "R1 /in /out 2.2k\nC1 /in GND 1u\n.end\n")),
         {"netlist C1 out 0 1u"}, task="kicad-spice-netlist-value"),
    Case("spice_netlist/wrong-place", "wrong-place",
         lambda t: {"schematic": schematic(t / "s.kicad_sch", values={"R1": "2.2k"})},
         {"netlist is a SPICE netlist", "netlist R1 in out 2.2k", "netlist C1 out 0 1u"},
         task="kicad-spice-netlist-value"),
    Case("spice_netlist/wrong-type: the KiCad netlist", "wrong-type",
         lambda t: value_and_netlist(t, text(t / "rc.cir", '(export (version "E")\n  (components))\n')),
         {"netlist is a SPICE netlist", "netlist R1 in out 2.2k", "netlist C1 out 0 1u"},
         task="kicad-spice-netlist-value", says="not a SPICE netlist"),
    # kicad_via
    Case("kicad_via/correct", "correct", lambda t: {"board": board(t / "b.kicad_pcb", (121.92, 119.38))}, set(),
         task="kicad-pcb-via"),
    Case("kicad_via/wrong-param: one grid step off", "wrong-param",
         lambda t: {"board": board(t / "b.kicad_pcb", (124.46, 119.38))}, {"board via at (121.92, 119.38)"},
         task="kicad-pcb-via"),
    Case("kicad_via/wrong-param: two vias", "wrong-param",
         lambda t: {"board": board(t / "b.kicad_pcb", (121.92, 119.38), (124.46, 119.38))}, {"board has 1 via(s)"},
         task="kicad-pcb-via"),
    Case("kicad_via/wrong-param: a blind via", "wrong-param",
         lambda t: {"board": board(t / "b.kicad_pcb", (121.92, 119.38), layers='"F.Cu" "In1.Cu"')},
         {"board via at (121.92, 119.38)"}, task="kicad-pcb-via", says="not F.Cu-B.Cu"),
    Case("kicad_via/unsaved", "unsaved",
         lambda t: {"board": copy(FIX / "engineering" / "divider.kicad_pcb", t / "b.kicad_pcb")},
         {"board via at (121.92, 119.38)", "board has 1 via(s)"}, task="kicad-pcb-via"),
    Case("kicad_via/wrong-type: the schematic", "wrong-type",
         lambda t: {"board": copy(FIX / "engineering" / "divider.kicad_sch", t / "b.kicad_pcb")}, ALL,
         task="kicad-pcb-via", says="board"),
    # kicad_fields
    Case("kicad_fields/correct", "correct",
         lambda t: {"schematic": schematic(t / "s.kicad_sch", footprints={"R1": "Resistor_SMD:R_0805_2012Metric"})},
         set(), task="kicad-sch-footprint"),
    Case("kicad_fields/wrong-param: the 0603 footprint", "wrong-param",
         lambda t: {"schematic": schematic(t / "s.kicad_sch", footprints={"R1": "Resistor_SMD:R_0603_1608Metric"})},
         {"schematic R1 Footprint = Resistor_SMD:R_0805_2012Metric"}, task="kicad-sch-footprint"),
    Case("kicad_fields/wrong-param: on C1", "wrong-param",
         lambda t: {"schematic": schematic(t / "s.kicad_sch", footprints={"C1": "Resistor_SMD:R_0805_2012Metric"})},
         {"schematic R1 Footprint = Resistor_SMD:R_0805_2012Metric", "schematic C1 Footprint = "},
         task="kicad-sch-footprint"),
    Case("kicad_fields/unsaved", "unsaved", lambda t: {"schematic": copy(MORE / "rc_sim.kicad_sch", t / "s.kicad_sch")},
         {"schematic R1 Footprint = Resistor_SMD:R_0805_2012Metric"}, task="kicad-sch-footprint"),
    Case("kicad_fields/wrong-type: empty", "wrong-type", lambda t: {"schematic": empty(t / "s.kicad_sch")}, ALL,
         task="kicad-sch-footprint", says="schematic"),
    Case("kicad_fields/equivalent: R2 as 7k15", "equivalent",
         lambda t: {"schematic": schematic(t / "d.kicad_sch", "divider_sim", values={"R2": "7k15"}),
                    "data": sim_csv(t / "d.csv", steps(12, 0.5), {"V(/out)": lambda v: FX.divider(v, r2=7150)})},
         set(), task="kicad-sim-design-divider"),
    Case("kicad_fields/wrong-param: R2 7.5k (5.1 V)", "wrong-param",
         lambda t: {"schematic": schematic(t / "d.kicad_sch", "divider_sim", values={"R2": "7.5k"}),
                    "data": sim_csv(t / "d.csv", steps(12, 0.5), {"V(/out)": lambda v: FX.divider(v, r2=7500)})},
         {"schematic R2 ≈ 7142.86", "data passes (6, 2.5)", "data passes (12, 5)"}, task="kicad-sim-design-divider"),
    # kicad_erc
    Case("kicad_erc/correct", "correct", lambda t: {"report": text(t / "erc.rpt", ERC_RPT)}, set(),
         task="kicad-erc-report"),
    Case("kicad_erc/wrong-param: another schematic's report", "wrong-param",
         lambda t: {"report": text(t / "erc.rpt", ERC_RPT.split("[power_pin")[0] + "\n ** ERC messages: 0  Errors 0  "
                                                                                    "Warnings 0\n")},
         ALL, task="kicad-erc-report"),
    Case("kicad_erc/wrong-param: the checker not run", "wrong-param",
         lambda t: {"report": text(t / "erc.rpt", "ERC report (Mon Dec  7 01:48:28 2026, Encoding UTF8)\n")},
         ALL, task="kicad-erc-report", says="not run"),
    Case("kicad_erc/wrong-place", "wrong-place", lambda t: {}, ALL, task="kicad-erc-report"),
    Case("kicad_erc/wrong-type: the schematic", "wrong-type",
         lambda t: {"report": copy(MORE / "rc_sim.kicad_sch", t / "erc.rpt")}, ALL, task="kicad-erc-report",
         says="not an ERC report"),
    # chem_charge
    Case("chem_charge/correct", "correct", lambda t: {"molecule": cdml(t / "a.cdml", PROPYLAMINE, CHAIN3, {3: 1})},
         set(), task="chem-charge-ammonium"),
    Case("chem_charge/wrong-param: on a carbon", "wrong-param",
         lambda t: {"molecule": cdml(t / "a.cdml", PROPYLAMINE, CHAIN3, {2: 1})},
         {"molecule carries the charges N+1", "molecule is the structure CCCN with N+1 (C3H10N)"},
         task="chem-charge-ammonium"),
    Case("chem_charge/wrong-param: minus", "wrong-param",
         lambda t: {"molecule": cdml(t / "a.cdml", PROPYLAMINE, CHAIN3, {3: -1})},
         {"molecule carries the charges N+1", "molecule is the structure CCCN with N+1 (C3H10N)"},
         task="chem-charge-ammonium"),
    Case("chem_charge/unsaved", "unsaved", lambda t: {"molecule": copy(MORE / "propylamine.cdml", t / "a.cdml")},
         {"molecule carries the charges N+1", "molecule is the structure CCCN with N+1 (C3H10N)"},
         task="chem-charge-ammonium"),
    Case("chem_charge/wrong-type: a molfile as .cdml", "wrong-type",
         lambda t: {"molecule": molfile(t / "a.cdml", PROPYLAMINE, CHAIN3, {3: 1})}, ALL, task="chem-charge-ammonium",
         says="not a cdml"),
    Case("chem_charge/equivalent: M  CHG in the molfile", "equivalent",
         lambda t: {"molecule": cdml(t / "a.cdml", PROPYLAMINE, CHAIN3, {3: 1}),
                    "mol": molfile(t / "a.mol", PROPYLAMINE, CHAIN3, {3: 1}, m_chg=True)}, set(),
         task="chem-ammonium-molfile"),
    Case("chem_charge/unsaved: exported before the charge", "unsaved",
         lambda t: {"molecule": cdml(t / "a.cdml", PROPYLAMINE, CHAIN3, {3: 1}),
                    "mol": molfile(t / "a.mol", PROPYLAMINE, CHAIN3)},
         {"mol carries the charges N+1", "mol is the structure CCCN with N+1 (C3H10N)"}, task="chem-ammonium-molfile"),
    # chem_transform
    Case("chem_transform/correct", "correct",
         lambda t: {"molecule": cdml(t / "m.cdml", mirrored(PROPYLAMINE), CHAIN3)}, set(), task="chem-mirror"),
    Case("chem_transform/wrong-param: top to bottom", "wrong-param",
         lambda t: {"molecule": cdml(t / "m.cdml", mirrored(PROPYLAMINE, "y"), CHAIN3)},
         {"molecule is propylamine.cdml after mirror x"}, task="chem-mirror"),
    Case("chem_transform/unsaved", "unsaved", lambda t: {"molecule": copy(MORE / "propylamine.cdml", t / "m.cdml")},
         {"molecule is propylamine.cdml after mirror x"}, task="chem-mirror"),
    Case("chem_transform/wrong-param: N redrawn as C", "wrong-param",
         lambda t: {"molecule": cdml(t / "m.cdml", mirrored(CHEM.chain("CCCC")), CHAIN3)}, ALL, task="chem-mirror"),
    Case("chem_transform/wrong-type: PNG", "wrong-type", lambda t: {"molecule": png_file(t / "m.cdml")}, ALL,
         task="chem-mirror", says="molecule"),
    # chem_name
    Case("chem_name/correct", "correct",
         lambda t: {"molecule": cdml(t / "h.cdml", *FX.MOLECULES["hexane"], name="n-hexane")}, set(),
         task="chem-molecule-name"),
    Case("chem_name/wrong-param: hexane", "wrong-param",
         lambda t: {"molecule": cdml(t / "h.cdml", *FX.MOLECULES["hexane"], name="hexane")},
         {"molecule molecule named 'n-hexane'"}, task="chem-molecule-name"),
    Case("chem_name/unsaved", "unsaved", lambda t: {"molecule": copy(MORE / "hexane.cdml", t / "h.cdml")},
         {"molecule molecule named 'n-hexane'"}, task="chem-molecule-name"),
    Case("chem_name/wrong-type: empty", "wrong-type", lambda t: {"molecule": empty(t / "h.cdml")}, ALL,
         task="chem-molecule-name", says="molecule"),
    Case("chem_name/wrong-param: benzene named cyclohexane", "wrong-param",
         lambda t: {"molecule": cdml(t / "c.cdml", RING, [(k, (k + 1) % 6, 1 + k % 2) for k in range(6)],
                                     name="cyclohexane")},
         {"molecule is the structure C1CCCCC1 (C6H12)"}, task="chem-cyclohexane-named"),
    # chem_svg
    Case("chem_svg/correct", "correct", lambda t: {"drawing": bkchem_svg(t / "e.svg", 2, ["O"])}, set(),
         task="chem-export-svg"),
    Case("chem_svg/wrong-param: the O missing (ethane)", "wrong-param",
         lambda t: {"drawing": bkchem_svg(t / "e.svg", 1)}, ALL, task="chem-export-svg"),
    Case("chem_svg/wrong-place", "wrong-place", lambda t: {}, ALL, task="chem-export-svg"),
    Case("chem_svg/wrong-type: the CDML under .svg", "wrong-type",
         lambda t: {"drawing": copy(FIX / "chem" / "ethanol.cdml", t / "e.svg")}, ALL, task="chem-export-svg",
         says="not an SVG drawing"),
    # chem_align
    Case("chem_align/correct", "correct",
         lambda t: {"molecule": two_chains(t / "two.cdml"), "drawing": bkchem_svg(t / "c.svg", 4)}, set(),
         task="chem-align-top-svg"),
    Case("chem_align/wrong-param: bottoms aligned", "wrong-param",
         lambda t: {"molecule": two_chains(t / "two.cdml", dy_second=-1.65), "drawing": bkchem_svg(t / "c.svg", 4)},
         {"molecule molecules aligned top"}, task="chem-align-top-svg"),
    Case("chem_align/unsaved", "unsaved",
         lambda t: {"molecule": copy(MORE / "two_chains.cdml", t / "two.cdml"), "drawing": bkchem_svg(t / "c.svg", 4)},
         {"molecule molecules aligned top"}, task="chem-align-top-svg"),
    Case("chem_align/wrong-param: one molecule deleted", "wrong-param",
         lambda t: {"molecule": text(t / "two.cdml", FX.cdml_many(FX.PAIRS["two_chains"][:1])),
                    "drawing": bkchem_svg(t / "c.svg", 4)},
         {"molecule keeps the 2 molecules of two_chains.cdml", "molecule molecules aligned top"},
         task="chem-align-top-svg"),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_near_miss(case: Case, tmp_path: Path) -> None:
    check_case(case, tmp_path)


def test_every_new_kind_has_near_misses() -> None:
    kinds = set(circuit_more.KINDS) | set(chem_more.KINDS)
    covered = {c.id.split("/")[0] for c in CASES if c.near_miss}
    assert kinds <= covered, sorted(kinds - covered)
    scenarios = {(c.id.split("/")[0], c.scenario) for c in CASES}
    for kind in kinds:
        assert (kind, "correct") in scenarios, kind


def test_bad_ground_truths_are_errors() -> None:
    from types import SimpleNamespace

    ctx = SimpleNamespace(artifacts={})
    with pytest.raises(ValueError, match="transform"):
        chem_more.KINDS["chem_transform"](ctx, {"source": "multisim_chem_more/propylamine.cdml", "transform": "spin"})
    with pytest.raises(ValueError, match="already aligned"):
        chem_more.KINDS["chem_align"](ctx, {"source": "chem/ethanol.cdml", "edge": "top"})
    with pytest.raises(ValueError, match="charges"):
        chem_more.KINDS["chem_charge"](ctx, {"smiles": "CCN"})
