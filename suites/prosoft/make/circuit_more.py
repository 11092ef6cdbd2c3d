"""Writes tasks/circuit_more.json: more of Multisim's stand-ins, run in cua-desktop-arena: ngspice's own console (an
xterm titled "ngspice", as in ``make/circuit.py``) and KiCad 6's schematic editor with its simulator (Inspect >
Simulator, which runs ngspice through libngspice), plus tasks in KiCad's schematic and PCB editors.

Start files: ``fixtures/prosoft/multisim_chem_more/`` (``make_fixtures.py`` there: the simulator's schematics, the
RLC netlist, and the closed-form figures) and, read-only, ``fixtures/prosoft/circuit/`` (the first netlists) and
``fixtures/prosoft/engineering/`` (KiCad's settings, the divider schematic). Evaluators: ``checks/circuit_more.py``
(``spice_values``, ``spice_raw``, ``kicad_sim_csv``, ``spice_netlist``, ``kicad_fields``, ``kicad_erc``,
``kicad_via``) and the first kinds (``spice_value``, ``spice_wave``, ``kicad_sch``). Run from the repository root::

    python suites/prosoft/make/circuit_more.py
"""
import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent))
from common import GONE, SAVE, SAVED, WIN, C, K, P, T, W, task, write  # noqa: E402
from circuit import CARD, I_LED, say, start  # noqa: E402

ROOT = HERE.parents[3]
MORE = "fixtures/prosoft/multisim_chem_more"
WORK = "/root/work"


def _fixtures():  # type: ignore[no-untyped-def]
    """This round's make_fixtures.py, loaded by path (several fixture folders have one of that name)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("multisim_chem_more_fixtures", ROOT / MORE / "make_fixtures.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


FX = _fixtures()
ENG_FX = FX.ENG  # fixtures/prosoft/engineering/make_fixtures.py, which it loads
TAGS = ["ngspice", "electronics", "circuit"]
APPS = ["ngspice"]


def more_start(netlist, artifacts):
    """ngspice's console with a netlist of this folder loaded (``start`` of make/circuit.py for the first ones)."""
    data = start(netlist, artifacts)
    data["start_files"] = [{"src": f"{MORE}/{netlist}", "dest": f"{WORK}/{netlist}"}]
    return data


def values(artifact, **specs):
    return {"artifact": artifact, "values": specs}


CARD_MORE = CARD + [
    "'tf v(out) v1' is the small-signal transfer function analysis: it makes the vectors transfer_function, "
    "output_impedance_at_v(out) and v1#input_impedance. 'pz in 0 out 0 vol pz' is a pole-zero analysis: "
    "pole(1), zero(1) ... (complex: real, imaginary).",
    "'dc r2 1k 20k 1k' sweeps a resistor's value; 'let NAME = EXPR' computes a vector from others "
    "(v(in) * i(v1), f2 - f1); 'set filetype=ascii' then 'write FILE v(out)' writes the last analysis as an "
    "ASCII raw file (binary without the set).",
    "'meas ac NAME WHEN vdb(out)=-3 RISE=1' is the first crossing upwards, FALL=1 the first downwards."]

R2_SWEEP = [[r, round(FX.divider(12, r2=r), 4)] for r in (1e3, 4e3, 10e3, 20e3)]
RLC_BW = FX.RLC_R / (2 * math.pi * FX.RLC_L)  # series RLC -3 dB bandwidth: R / (2 pi L), 1591.5 Hz
C_FOR_1K = 1 / (2 * math.pi * 1e3 * 1e3)  # C1 that puts rc.cir's corner (R1 1k) at 1 kHz: 159.15 nF
P_SOURCE = 12 ** 2 / (10e3 + 4.7e3)  # the power V1 delivers into the divider, 9.796 mW


def rlc_gain_db(f, r=FX.RLC_R):
    w = 2 * math.pi * f
    return -10 * math.log10(1 + ((w * FX.RLC_L - 1 / (w * FX.RLC_C)) / r) ** 2)


ngspice_tasks = [
    task("circuit-tf-divider", "L1",
         "ngspice's console is open with divider.cir loaded (12 V across R1 10k and R2 4.7k). Run a small-signal "
         "transfer function analysis of v(out) with respect to the source V1 (ngspice's tf command) and write its "
         "transfer function and output impedance, the vectors transfer_function and output_impedance_at_v(out), "
         "to /root/work/tf.txt (one print redirected to the file).",
         "spice_values", values("tf", transfer_function={"number": round(4.7 / 14.7, 6), "tolerance": 1e-4},
                                **{"output_impedance_at_v(out)": {"number": round(10e3 * 4.7e3 / 14.7e3, 3),
                                                                  "rel": 0.001}}),
         start("divider.cir", {"tf": f"{WORK}/tf.txt"}),
         say("tf v(out) v1", f"print transfer_function output_impedance_at_v(out) > {WORK}/tf.txt"),
         tags=TAGS, apps=APPS, knowledge=CARD_MORE),
    task("circuit-pz-rc", "L1",
         "ngspice's console is open with rc.cir loaded (an RC low-pass, R1 1k, C1 1u, from node in to node out). "
         "Run a pole-zero analysis of the voltage transfer from in to out (pz in 0 out 0 vol pz) and write the "
         "first pole, pole(1), to /root/work/pole.txt (print redirected to the file).",
         "spice_values", values("pole", **{"pole(1)": {"number": -1000.0, "rel": 0.01}}),
         start("rc.cir", {"pole": f"{WORK}/pole.txt"}),
         say("pz in 0 out 0 vol pz", f"print pole(1) > {WORK}/pole.txt"), tags=TAGS, apps=APPS, knowledge=CARD_MORE),
    task("circuit-sweep-resistor", "L1",
         "ngspice's console is open with divider.cir loaded. Sweep the value of R2 from 1k to 20k in steps of 1k "
         "(a DC sweep of the resistor) and write v(out) over R2's value to /root/work/r2sweep.txt with wrdata.",
         "spice_wave", {"artifact": "data", "x_range": [1e3, 20e3], "points": R2_SWEEP, "tolerance": 0.002,
                        "min_rows": 20},
         start("divider.cir", {"data": f"{WORK}/r2sweep.txt"}),
         say("dc r2 1k 20k 1k", f"wrdata {WORK}/r2sweep.txt v(out)"), tags=TAGS, apps=APPS, knowledge=CARD_MORE),
    task("circuit-write-raw", "L1",
         "ngspice's console is open with rc.cir loaded. Run a transient analysis from 0 to 5 ms with a 10 us step "
         "and save v(out) in ngspice's raw format as an ASCII file (not binary) to /root/work/step.raw "
         "(ngspice's write command).",
         "spice_raw", {"artifact": "raw", "ascii": True, "plot": "Transient Analysis", "vector": "v(out)",
                       "x_range": [0, 5e-3], "tolerance": 0.02,
                       "points": [[t, round(FX.rc_step(t), 4)] for t in (1e-3, 2e-3, 5e-3)]},
         start("rc.cir", {"raw": f"{WORK}/step.raw"}),
         say("tran 10u 5m", "set filetype=ascii", f"write {WORK}/step.raw v(out)"), tags=TAGS, apps=APPS,
         knowledge=CARD_MORE),
    task("circuit-rlc-bandwidth", "L2",
         "ngspice's console is open with rlc.cir loaded (a series RLC band-pass: L1 10 mH, C1 100 nF, the output "
         "across R1 100 ohm). Run an AC sweep from 1 kHz to 20 kHz (100 points per decade), measure the two "
         "frequencies where vdb(out) crosses -3 dB, compute the -3 dB bandwidth (the upper minus the lower) as a "
         "vector named bw, and write it to /root/work/bw.txt (print bw redirected to the file).",
         "spice_value", {"outputs": {"bw": {"vector": "bw", "number": round(RLC_BW, 2), "rel": 0.02}}},
         more_start("rlc.cir", {"bw": f"{WORK}/bw.txt"}),
         say("ac dec 100 1k 20k", "meas ac f1 WHEN vdb(out)=-3 RISE=1", "meas ac f2 WHEN vdb(out)=-3 FALL=1",
             "let bw = f2 - f1", f"print bw > {WORK}/bw.txt"),
         tags=TAGS, apps=APPS, knowledge=CARD_MORE + ["A series RLC's -3 dB bandwidth is R / (2 pi L)."]),
    task("circuit-design-corner", "L2",
         "ngspice's console is open with rc.cir loaded (R1 1k, C1 1u: a corner near 159 Hz). Choose a new value "
         "for C1 that moves the -3 dB corner frequency to 1 kHz, set it, run an AC sweep from 10 Hz to 100 kHz "
         "(50 points per decade), measure the corner as a vector named fc (meas ac ... WHEN vdb(out)=-3), and write "
         "it to /root/work/corner.txt (print fc redirected to the file). It must read 1 kHz within 2 %.",
         "spice_value", {"outputs": {"corner": {"vector": "fc", "number": 1000.0, "rel": 0.02}}},
         start("rc.cir", {"corner": f"{WORK}/corner.txt"}),
         say(f"alter c1 = {C_FOR_1K * 1e9:.2f}n", "ac dec 50 10 100k", "meas ac fc WHEN vdb(out)=-3",
             f"print fc > {WORK}/corner.txt"),
         tags=TAGS, apps=APPS, knowledge=CARD_MORE + ["An RC low-pass's corner is 1 / (2 pi R C)."]),
    task("circuit-source-power", "L2",
         "ngspice's console is open with divider.cir loaded (12 V across R1 10k and R2 4.7k). Compute the DC "
         "operating point, then the power the source V1 delivers, in watts and positive, as a vector named p "
         "(from v(in) and the current i(v1), which SPICE counts negative for a source that delivers), and write "
         "it to /root/work/power.txt (print p redirected to the file).",
         "spice_value", {"outputs": {"power": {"vector": "p", "number": round(P_SOURCE, 7), "rel": 0.005}}},
         start("divider.cir", {"power": f"{WORK}/power.txt"}),
         say("op", "let p = -v(in) * i(v1)", f"print p > {WORK}/power.txt"), tags=TAGS, apps=APPS,
         knowledge=CARD_MORE + ["A source's power is its voltage times the current it delivers."]),
    task("circuit-rlc-damped", "L2",
         "ngspice's console is open with rlc.cir loaded. Make the band-pass wider by changing R1 from 100 ohm to "
         "300 ohm, run an AC sweep from 1 kHz to 20 kHz with 50 points per decade, and write the output's gain in "
         "dB, vdb(out), over frequency to /root/work/rlc.txt with wrdata.",
         "spice_wave", {"artifact": "data", "x_range": [1e3, 2e4], "tolerance": 0.05, "log_x": True,
                        "points": [[f, round(rlc_gain_db(f, 300.0), 3)] for f in (2e3, 4e3, 8e3, 1.5e4)]},
         more_start("rlc.cir", {"data": f"{WORK}/rlc.txt"}),
         say("alter r1 = 300", "ac dec 50 1k 20k", f"wrdata {WORK}/rlc.txt vdb(out)"), tags=TAGS, apps=APPS,
         knowledge=CARD_MORE),
    task("circuit-led-sweep", "L2",
         "ngspice's console is open with led.cir loaded (V1 5 V through R1 330 ohm into the diode D1). Sweep V1 "
         "from 0 to 5 V in steps of 0.05 V and write the diode's current, taken as the current out of V1 "
         "(-i(v1), positive), over the swept voltage to /root/work/iv.txt with wrdata; the curve must end at "
         "the operating point's current at 5 V.",
         "spice_wave", {"artifact": "data", "x_range": [0, 5], "tolerance": 0.0002, "min_rows": 90,
                        "points": [[0.0, 0.0], [1.0, 0.0], [5.0, round(I_LED, 6)]]},
         start("led.cir", {"data": f"{WORK}/iv.txt"}),
         say("dc v1 0 5 0.05", "let id = -i(v1)", f"wrdata {WORK}/iv.txt id"), tags=TAGS, apps=APPS,
         knowledge=CARD_MORE),
]


# --- KiCad's schematic simulator (Inspect > Simulator) ---------------------------------------------------------

KICAD_CFG = "/root/.config/kicad/6.0"
ENG = "fixtures/prosoft/engineering"
KICAD_TAGS = {"tags": ["kicad", "electronics", "simulation"], "apps": ["kicad"], "max_steps": 120}


def kicad(name, artifacts, folder=MORE, project=None):
    """KiCad's schematic editor with ``name`` (and its project file), and the settings that keep KiCad's first-start
    dialogs away (those of the engineering tasks)."""
    stem = Path(name).stem
    pro = project or f"{stem}.kicad_pro"
    files = [{"src": f"{folder}/{name}", "dest": f"{WORK}/{name}"}, {"src": f"{folder}/{pro}", "dest": f"{WORK}/{pro}"}]
    files += [{"src": f"{ENG}/{f}", "dest": f"{KICAD_CFG}/{f}"} for f in ("kicad_common.json", "sym-lib-table",
                                                                          "fp-lib-table")]
    return {"start_files": files, "start_command": ["eeschema", f"{WORK}/{name}"],
            "window": f"^{stem} .*Schematic Editor", "window_timeout_s": 240, "artifacts": artifacts}


SIM_MENU, SIM_FILE = C(82, 32), C(20, 32)  # the simulator's menus (its window opens at the top left, 498x379)
SIM_ITEMS = {"run": C(120, 57), "signals": C(115, 83), "settings": C(103, 185)}
SETTINGS_TABS = {"ac": C(70, 43), "dc": C(155, 43), "tran": C(400, 43)}  # as the dialog first opens
DC_SOURCE = (173, 160)  # the DC tab's source list; its one entry, V1, pops up over it


def open_simulator():
    return [C(210, 31), W(1), C(246, 157), WIN("Spice Simulator", 60), W(2)]


def sim_settings(tab, *fields, source=False):
    """Simulation > Settings..., a tab, its fields typed (Tab between them), Enter (OK). The first field of the AC
    and transient tabs has the focus when the tab is picked (the AC tab's when clicked, the dialog opening on that tab); the DC tab's source list is picked first."""
    steps = [SIM_MENU, W(1), SIM_ITEMS["settings"], WIN("^Simulation settings", 30), W(1.5), SETTINGS_TABS[tab], W(1)]
    if source:
        steps += [C(*DC_SOURCE), W(1), C(*DC_SOURCE), W(0.8), P("tab"), W(0.3)]
    elif tab == "ac":  # the dialog opens on the AC tab, its fields without the focus
        steps += [C(282, 190), W(0.5)]
    for k, value in enumerate(fields):
        steps += ([P("tab")] if k else []) + [T(value)]
    return steps + [W(0.5), P("enter"), GONE("^Simulation settings", 30), W(1)]


def run_and_plot(signal):
    """Simulation > Run Simulation, then Add Signals..., the signal typed by name, OK."""
    return [SIM_MENU, W(1), SIM_ITEMS["run"], W(5), SIM_MENU, W(1), SIM_ITEMS["signals"], W(3), C(252, 475), W(0.5),
            T(signal), W(0.5), C(427, 515), W(2)]


def save_csv(path):
    """File > Save as .csv File; the path typed into the file dialog, its Save button."""
    return [SIM_FILE, W(1), C(85, 184), WIN("^Save Plot Data", 30), W(1), T(path), W(1), C(1047, 771), SAVED(path)]


def simulate(tab, fields, signal, path, source=False):
    return [*open_simulator(), *sim_settings(tab, *fields, source=source), *run_and_plot(signal), *save_csv(path)]


SIM_CARD = ["KiCad 6 simulates the schematic with ngspice: Inspect > Simulator opens the Spice Simulator window. "
            "Simulation > Settings... picks the analysis (AC: points per decade, start and stop frequency; DC "
            "Transfer: the source and its start, stop and step; Transient: time step and final time); Simulation "
            "> Run Simulation runs it; Simulation > Add Signals... plots a signal (a net's voltage is V(/net)); "
            "File > Save as .csv File writes the plotted signals.",
            "SPICE suffixes: 10u = 10e-6, 5m = 5e-3, 100k = 1e5. A symbol's value is its SPICE value; a source's "
            "value is its SPICE description (dc 12, or pulse(...) ac 1)."]
RC_STEP = [[t, round(FX.rc_step(t), 4)] for t in (0.5e-3, 1e-3, 2e-3, 3e-3, 5e-3)]
DIV_SWEEP = [[v, round(FX.divider(v), 4)] for v in (0, 3, 6, 12)]
RC_BODE = [[f, round(FX.rc_gain_db(f), 3)] for f in (10, 100, round(FX.RC_CORNER_HZ, 2), 1000, 10000)]

kicad_sim_tasks = [
    task("kicad-sim-transient", "L1",
         "rc_sim.kicad_sch (an RC low-pass: V1 steps from 0 to 5 V at t = 0, R1 1k, C1 1u) is open in KiCad's "
         "schematic editor. In KiCad's simulator (Inspect > Simulator), run a transient analysis from 0 to 5 ms with "
         "a 10 us time step, plot the output voltage V(/out), and save the plot's data as CSV to "
         "/root/work/step.csv (File > Save as .csv File).",
         "kicad_sim_csv", {"artifact": "data", "signal": "V(/out)", "x_range": [0, 5e-3], "points": RC_STEP,
                           "tolerance": 0.02},
         kicad("rc_sim.kicad_sch", {"data": f"{WORK}/step.csv"}),
         simulate("tran", ["10u", "5m"], "V(/out)", f"{WORK}/step.csv"), knowledge=SIM_CARD, **KICAD_TAGS),
    task("kicad-sim-dc-sweep", "L1",
         "divider_sim.kicad_sch (V1 across R1 10k and R2 4.7k, the output between them) is open in KiCad's "
         "schematic editor. In KiCad's simulator (Inspect > Simulator), run a DC sweep of the source V1 from 0 to "
         "12 V in steps of 0.5 V, plot the output voltage V(/out), and save the plot's data as CSV to "
         "/root/work/sweep.csv (File > Save as .csv File).",
         "kicad_sim_csv", {"artifact": "data", "signal": "V(/out)", "x_range": [0, 12], "points": DIV_SWEEP,
                           "tolerance": 0.002, "min_rows": 20},
         kicad("divider_sim.kicad_sch", {"data": f"{WORK}/sweep.csv"}),
         simulate("dc", ["0", "12", "0.5"], "V(/out)", f"{WORK}/sweep.csv", source=True), knowledge=SIM_CARD,
         **KICAD_TAGS),
    task("kicad-sim-ac-bode", "L2",
         "rc_sim.kicad_sch (an RC low-pass, R1 1k and C1 1u; V1 is also the AC source) is open in KiCad's schematic "
         "editor. In KiCad's simulator, run an AC analysis from 10 Hz to 100 kHz with 20 points per decade, plot "
         "the output V(/out) (its gain in dB and phase), and save the plot's data as CSV to /root/work/bode.csv.",
         "kicad_sim_csv", {"artifact": "data", "signal": "V(/out)", "x_range": [10, 1e5], "points": RC_BODE,
                           "tolerance": 0.1, "log_x": True},
         kicad("rc_sim.kicad_sch", {"data": f"{WORK}/bode.csv"}),
         simulate("ac", ["20", "10", "100k"], "V(/out)", f"{WORK}/bode.csv"), knowledge=SIM_CARD, **KICAD_TAGS),
]

# --- KiCad's schematic editor: fields, SPICE netlist, ERC, and edits simulated -----------------------------------

SYMBOL_AT = {"R1": (500, 286), "C1": (571, 320), "R2": (571, 320)}  # symbol bodies as the editor opens the sheets
PCB_AT = ENG_FX.PCB_AT  # the engineering tasks' board: footprint places (mm)
PCB_CARD = ["PCB editor: the right toolbar's Add Vias tool (the orange ring) places a via where the board is "
            "clicked, snapped to the grid; Escape ends the tool; Ctrl+S saves."]


def pcb(name, artifacts):
    """KiCad's PCB editor with the engineering tasks' board (read-only there) and KiCad's settings."""
    data = kicad(name, artifacts, folder=ENG, project="divider.kicad_pro")
    data.update(start_command=["pcbnew", f"{WORK}/{name}"], window=f"^{Path(name).stem} .*PCB Editor")
    return data


def board_px(x, y):
    """The board view fits the outline (100, 100)-(140, 125) mm to x 100-980, y 149-698 px (22 px per mm), as the
    engineering tasks measured it."""
    return C(round(100 + (x - 100) * 22), round(149 + (y - 100) * 21.96))


def edit_value(ref, new):
    """Select the symbol, V (Edit Value): the dialog opens with the value selected; Enter confirms."""
    return [C(*SYMBOL_AT[ref]), W(1), P("v"), W(2.5), K("ctrl", "a"), T(new + "\n"), W(1.5), P("escape"), W(0.5)]


def edit_footprint(ref, footprint):
    """Select the symbol, E (Symbol Properties): the Reference cell is being edited; the first Down ends that edit,
    two more reach the Footprint row, whose value typing replaces; Enter commits it; OK."""
    return [C(*SYMBOL_AT[ref]), W(1), P("e"), WIN("^Symbol Properties", 30), W(1.5), P("down"), W(0.4), P("down"),
            W(0.4), P("down"), W(0.4), T(footprint), W(0.4), P("enter"), W(1), C(1002, 679),
            GONE("Symbol Properties", 30), W(0.5)]


def spice_netlist(path):
    """File > Export > Netlist..., the Spice tab, Export Netlist, the path."""
    return [C(19, 31), W(1.5), C(52, 234), W(1), P("right"), W(0.5), P("down"), P("enter"), WIN("^Export Netlist", 30),
            W(1.5), C(664, 380), W(1), C(849, 582), WIN("^Save Netlist File", 30), W(1), K("ctrl", "a"),
            T(path + "\n"), SAVED(path)]


def erc_report(path):
    """Inspect > Electrical Rules Checker, Run ERC, Save..., the path."""
    return [C(210, 31), W(1), C(288, 56), WIN("^Electrical Rules Checker", 30), W(1.5), C(952, 607), W(5),
            C(953, 553), WIN("^Save Report to File", 30), W(1), K("ctrl", "a"), T(path + "\n"), SAVED(path)]


EDIT_CARD = ["In KiCad's schematic editor, select a symbol and press V to edit its value, E for all its fields "
             "(Reference, Value, Footprint, ...); Ctrl+S saves. File > Export > Netlist... writes netlists (the "
             "Spice tab a SPICE netlist); Inspect > Electrical Rules Checker runs ERC (Run ERC) and saves its "
             "report (Save...)."]
R_0805 = "Resistor_SMD:R_0805_2012Metric"
RC_VALUES = {"V1": FX.RC_STEP_SOURCE, "R1": "1k", "C1": "1u"}
TAU_22 = 2.2e-3
R2_FOR_5V = 10e3 * 5 / (12 - 5)  # 7142.857 ohm

kicad_edit_tasks = [
    task("kicad-sch-footprint", "L1",
         "rc_sim.kicad_sch is open in KiCad's schematic editor. Assign the footprint "
         "Resistor_SMD:R_0805_2012Metric to resistor R1 (its Footprint field, in the symbol's properties) and save "
         "the schematic.",
         "kicad_fields", {"fields": {"R1": {"Footprint": R_0805}, "C1": {"Footprint": ""}}, "keep_values": RC_VALUES},
         kicad("rc_sim.kicad_sch", {"schematic": f"{WORK}/rc_sim.kicad_sch"}),
         [*edit_footprint("R1", R_0805), *SAVE], knowledge=EDIT_CARD, **{**KICAD_TAGS, "tags": ["kicad", "electronics"]}),
    task("kicad-pcb-via", "L1",
         "divider.kicad_pcb is open in KiCad's PCB editor. Place a through via (the Add Vias tool) at X = 121.92 mm, "
         "Y = 119.38 mm (a point of the 2.54 mm grid; the status bar shows the pointer's position) and save the "
         "board.",
         "kicad_via", {"artifact": "board", "vias": [{"at": [121.92, 119.38], "tol": 0.05}], "count": 1,
                       "keep_at": {ref: list(at) for ref, at in PCB_AT.items()}},
         pcb("divider.kicad_pcb", {"board": f"{WORK}/divider.kicad_pcb"}),
         [W(2), C(1078, 309), W(1.5), board_px(121.92, 119.38), W(1.5), P("escape"), W(0.5), P("escape"), W(0.5),
          *SAVE], knowledge=EDIT_CARD + PCB_CARD, **{**KICAD_TAGS, "tags": ["kicad", "electronics"]}),
    task("kicad-erc-report", "L1",
         "rc_sim.kicad_sch is open in KiCad's schematic editor. Run the electrical rules check (Inspect > "
         "Electrical Rules Checker, Run ERC) and save its report to /root/work/erc.rpt.",
         "kicad_erc", {"artifact": "report", "errors": 1, "violations": {"power_pin_not_driven": ""}},
         kicad("rc_sim.kicad_sch", {"report": f"{WORK}/erc.rpt"}), erc_report(f"{WORK}/erc.rpt"),
         knowledge=EDIT_CARD, **{**KICAD_TAGS, "tags": ["kicad", "electronics"]}),
    task("kicad-sim-edit-transient", "L2",
         "rc_sim.kicad_sch (an RC low-pass: a 0 to 5 V step, R1 1k, C1 1u) is open in KiCad's schematic editor. "
         "Change C1's value to 2.2u and save the schematic; then in KiCad's simulator run a transient analysis "
         "from 0 to 10 ms with a 10 us step, plot V(/out), and save the plot's data as CSV to /root/work/step.csv.",
         "pipeline", {"steps": [
             {"template": "kicad_sch", "values": {"C1": "2.2u"}, "keep_values": {"R1": "1k", "V1": FX.RC_STEP_SOURCE}},
             {"template": "kicad_sim_csv", "artifact": "data", "signal": "V(/out)", "x_range": [0, 10e-3],
              "tolerance": 0.02, "points": [[t, round(FX.rc_step(t, TAU_22), 4)] for t in (1e-3, 2.2e-3, 5e-3, 10e-3)]}]},
         kicad("rc_sim.kicad_sch", {"schematic": f"{WORK}/rc_sim.kicad_sch", "data": f"{WORK}/step.csv"}),
         [*edit_value("C1", "2.2u"), *SAVE, *simulate("tran", ["10u", "10m"], "V(/out)", f"{WORK}/step.csv")],
         knowledge=SIM_CARD + EDIT_CARD, **KICAD_TAGS),
    task("kicad-sim-design-divider", "L2",
         "divider_sim.kicad_sch (V1 across R1 10k and R2 4.7k, the output V(/out) between them) is open in KiCad's "
         "schematic editor. Choose a new value for R2 so that the output is 5 V when V1 is 12 V (within 1 %), set "
         "it and save the schematic; then in KiCad's simulator sweep V1 from 0 to 12 V in steps of 0.5 V (DC "
         "sweep), plot V(/out), and save the plot's data as CSV to /root/work/sweep.csv.",
         "pipeline", {"steps": [
             {"template": "kicad_fields", "numbers": {"R2": {"number": round(R2_FOR_5V, 3), "rel": 0.01}},
              "keep_values": {"R1": "10k", "V1": "dc 12"}},
             {"template": "kicad_sim_csv", "artifact": "data", "signal": "V(/out)", "x_range": [0, 12],
              "tolerance": 0.05, "min_rows": 20, "points": [[6, 2.5], [12, 5.0]]}]},
         kicad("divider_sim.kicad_sch", {"schematic": f"{WORK}/divider_sim.kicad_sch", "data": f"{WORK}/sweep.csv"}),
         [*edit_value("R2", "7.15k"), *SAVE,
          *simulate("dc", ["0", "12", "0.5"], "V(/out)", f"{WORK}/sweep.csv", source=True)],
         knowledge=SIM_CARD + EDIT_CARD + ["A divider's output is Vin * R2 / (R1 + R2)."], **KICAD_TAGS),
    task("kicad-spice-netlist-value", "L2",
         "rc_sim.kicad_sch is open in KiCad's schematic editor. Change R1's value to 2.2k, save the schematic, and "
         "export the netlist in SPICE format to /root/work/rc.cir (File > Export > Netlist..., the Spice tab).",
         "pipeline", {"steps": [
             {"template": "kicad_sch", "values": {"R1": "2.2k"}, "keep_values": {"C1": "1u", "V1": FX.RC_STEP_SOURCE}},
             {"template": "spice_netlist", "artifact": "netlist", "elements": {
                 "R1": {"nodes": ["in", "out"], "value": "2.2k"}, "C1": {"nodes": ["out", "0"], "value": "1u"}}}]},
         kicad("rc_sim.kicad_sch", {"schematic": f"{WORK}/rc_sim.kicad_sch", "netlist": f"{WORK}/rc.cir"}),
         [*edit_value("R1", "2.2k"), *SAVE, *spice_netlist(f"{WORK}/rc.cir")], knowledge=EDIT_CARD,
         **{**KICAD_TAGS, "tags": ["kicad", "electronics"]}),
    task("kicad-sim-edit-ac", "L2",
         "rc_sim.kicad_sch (an RC low-pass, R1 1k and C1 1u) is open in KiCad's schematic editor. Change R1's "
         "value to 10k (moving the corner down to 15.9 Hz) and save the schematic; then in KiCad's simulator run an "
         "AC analysis from 1 Hz to 10 kHz with 20 points per decade, plot V(/out), and save the plot's data as CSV "
         "to /root/work/bode.csv.",
         "pipeline", {"steps": [
             {"template": "kicad_sch", "values": {"R1": "10k"}, "keep_values": {"C1": "1u", "V1": FX.RC_STEP_SOURCE}},
             {"template": "kicad_sim_csv", "artifact": "data", "signal": "V(/out)", "x_range": [1, 1e4],
              "tolerance": 0.1, "log_x": True,
              "points": [[f, round(FX.rc_gain_db(f, 10e-3), 3)] for f in (1, 10, 100, 1000)]}]},
         kicad("rc_sim.kicad_sch", {"schematic": f"{WORK}/rc_sim.kicad_sch", "data": f"{WORK}/bode.csv"}),
         [*edit_value("R1", "10k"), *SAVE, *simulate("ac", ["20", "1", "10k"], "V(/out)", f"{WORK}/bode.csv")],
         knowledge=SIM_CARD + EDIT_CARD, **KICAD_TAGS),
]

if __name__ == "__main__":
    write("circuit_more", ngspice_tasks + kicad_sim_tasks + kicad_edit_tasks)
