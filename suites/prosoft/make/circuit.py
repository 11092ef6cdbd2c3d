"""Writes tasks/circuit.json: circuit simulation with ngspice (Multisim's stand-in) on SPICE netlists, in ngspice's
own interactive console (an xterm titled "ngspice"), run in cua-desktop-arena.

Start files come from ``fixtures/prosoft/circuit/`` (``make_fixtures.py`` there, which also computes the expected
figures in closed form); the evaluators are ``checks/circuit.py``: ``spice_value`` (a value ngspice's ``print``
wrote to a file) and ``spice_wave`` (the data ``wrdata`` wrote: a curve checked at given points). Each L1 task is
one core function of a circuit simulator: DC operating point, changing a part's value, transient, AC sweep, DC
sweep, a measurement on a transient, a measurement on an AC sweep, a branch current; L2 tasks design a value to
meet a target and simulate it. Run from the repository root::

    python suites/prosoft/make/circuit.py
"""
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import T, W, fixtures_module, task, write  # noqa: E402
_FX = fixtures_module("circuit")
CORNER_HZ, R1, RISE_10_90 = _FX.CORNER_HZ, _FX.R1, _FX.RISE_10_90
divider_out, rc_gain_db, rc_step = _FX.divider_out, _FX.rc_gain_db, _FX.rc_step

WORK = "/root/work"
FIX = "fixtures/prosoft/circuit"
TAGS = ["ngspice", "electronics", "circuit"]
APPS = ["ngspice"]
CARD = ["ngspice's console: 'op' computes the DC operating point; 'tran TSTEP TSTOP' a transient; 'ac dec N FSTART "
        "FSTOP' an AC sweep; 'dc SOURCE START STOP STEP' a DC sweep.",
        "'print v(out)' shows a node voltage, 'print i(v1)' the current through a voltage source (SPICE counts "
        "it flowing into the + terminal: a source that delivers current reads negative); 'print EXPR > FILE' "
        "writes it to a file.",
        "'wrdata FILE v(out)' writes the last analysis's scale (time, frequency or the swept source) and the "
        "vector as columns; vdb(out) is the voltage in dB.",
        "'alter R2 = 4.7k' changes a part's value before the next analysis; 'meas tran NAME TRIG v(out) VAL=0.5 "
        "RISE=1 TARG v(out) VAL=4.5 RISE=1' measures a rise time; 'meas ac NAME WHEN vdb(out)=-3' a corner "
        "frequency; 'listing' shows the netlist."]


def start(netlist, artifacts):
    """ngspice's interactive console in an xterm, the netlist loaded."""
    return {"start_files": [{"src": f"{FIX}/{netlist}", "dest": f"{WORK}/{netlist}"}],
            "start_command": ["xterm", "-T", "ngspice", "-geometry", "140x40+0+0", "-e", "ngspice", f"{WORK}/{netlist}"],
            "window": "^ngspice$", "window_timeout_s": 60, "artifacts": artifacts}


def say(*commands):
    """Type each command at the ngspice prompt; a pause after each lets the simulator answer."""
    out = [W(1)]
    for command in commands:
        out += [T(command + "\n"), W(1.5)]
    return out


def led_current(r=330.0, v=5.0, i_s=1e-18, n=2.0, temp_c=27.0):
    """The diode current of led.cir (Shockley diode, Newton's method on the loop equation)."""
    vt = 1.380649e-23 * (temp_c + 273.15) / 1.602176634e-19
    i = 0.01
    for _ in range(100):
        vd = n * vt * math.log(i / i_s + 1)
        f = v - i * r - vd
        df = -r - n * vt / (i + i_s)
        i -= f / df
    return i


def value(name, vector, number, **tol):
    return {"outputs": {name: {"vector": vector, "number": number, **(tol or {"tolerance": 0.001})}}}


STEP_POINTS = [[t, round(rc_step(t), 4)] for t in (0.5e-3, 1e-3, 2e-3, 3e-3, 5e-3)]
BODE_POINTS = [[f, round(rc_gain_db(f), 3)] for f in (10, 100, round(CORNER_HZ, 2), 1000, 10000)]
SWEEP_POINTS = [[v, round(divider_out(v_in=v), 4)] for v in (0, 3, 6, 12)]
I_LED = led_current()
R_FOR_5V = R1 * 5 / (12 - 5)  # R2 that puts the divider's output at 5 V: 7142.857 ohm
TAU2 = 2.2e-3

tasks = [
    task("circuit-op-divider", "L1",
         "ngspice's console is open with divider.cir loaded (12 V across R1 10k and R2 4.7k). Compute the DC "
         "operating point and write the output node's voltage v(out) to /root/work/vout.txt (ngspice's print "
         "command redirected to the file).",
         "spice_value", value("vout", "v(out)", round(divider_out(), 6)), start("divider.cir", {"vout": f"{WORK}/vout.txt"}),
         say("op", f"print v(out) > {WORK}/vout.txt"), tags=TAGS, apps=APPS, knowledge=CARD),
    task("circuit-alter-r2", "L1",
         "ngspice's console is open with divider.cir loaded. Change R2 from 4.7k to 10k, compute the DC operating "
         "point, and write v(out) to /root/work/vout.txt (print redirected to the file).",
         "spice_value", value("vout", "v(out)", round(divider_out(r2=10e3), 6)),
         start("divider.cir", {"vout": f"{WORK}/vout.txt"}),
         say("alter r2 = 10k", "op", f"print v(out) > {WORK}/vout.txt"), tags=TAGS, apps=APPS, knowledge=CARD),
    task("circuit-tran-rc", "L1",
         "ngspice's console is open with rc.cir loaded (an RC low-pass, R1 1k and C1 1u, driven by a 0 to 5 V step "
         "at t = 0). Run a transient analysis from 0 to 5 ms with a 10 us step and write the output voltage v(out) "
         "over time to /root/work/step.txt with wrdata.",
         "spice_wave", {"artifact": "data", "x_range": [0, 5e-3], "points": STEP_POINTS, "tolerance": 0.02},
         start("rc.cir", {"data": f"{WORK}/step.txt"}), say("tran 10u 5m", f"wrdata {WORK}/step.txt v(out)"),
         tags=TAGS, apps=APPS, knowledge=CARD),
    task("circuit-ac-bode", "L1",
         "ngspice's console is open with rc.cir loaded (V1 is also its AC source). Run an AC sweep from 10 Hz to "
         "100 kHz with 20 points per decade and write the output's gain in dB, vdb(out), over frequency to "
         "/root/work/bode.txt with wrdata.",
         "spice_wave", {"artifact": "data", "x_range": [10, 1e5], "points": BODE_POINTS, "tolerance": 0.05,
                        "log_x": True},
         start("rc.cir", {"data": f"{WORK}/bode.txt"}), say("ac dec 20 10 100k", f"wrdata {WORK}/bode.txt vdb(out)"),
         tags=TAGS, apps=APPS, knowledge=CARD),
    task("circuit-dc-sweep", "L1",
         "ngspice's console is open with divider.cir loaded. Sweep the source V1 from 0 to 12 V in steps of 0.5 V "
         "(a DC sweep) and write v(out) over the swept voltage to /root/work/sweep.txt with wrdata.",
         "spice_wave", {"artifact": "data", "x_range": [0, 12], "points": SWEEP_POINTS, "tolerance": 0.002,
                        "min_rows": 20},
         start("divider.cir", {"data": f"{WORK}/sweep.txt"}), say("dc v1 0 12 0.5", f"wrdata {WORK}/sweep.txt v(out)"),
         tags=TAGS, apps=APPS, knowledge=CARD),
    task("circuit-meas-rise", "L1",
         "ngspice's console is open with rc.cir loaded. Run a transient analysis from 0 to 10 ms (10 us step), "
         "measure the 10 %-90 % rise time of v(out) (from 0.5 V to 4.5 V) with ngspice's meas command as a vector "
         "named trise, and write it to /root/work/rise.txt (print trise redirected to the file).",
         "spice_value", value("rise", "trise", round(RISE_10_90, 7), rel=0.02),
         start("rc.cir", {"rise": f"{WORK}/rise.txt"}),
         say("tran 10u 10m", "meas tran trise TRIG v(out) VAL=0.5 RISE=1 TARG v(out) VAL=4.5 RISE=1",
             f"print trise > {WORK}/rise.txt"), tags=TAGS, apps=APPS, knowledge=CARD),
    task("circuit-meas-corner", "L1",
         "ngspice's console is open with rc.cir loaded. Run an AC sweep from 10 Hz to 100 kHz (50 points per "
         "decade), measure the -3 dB corner frequency of v(out) as a vector named fc (meas ac ... WHEN "
         "vdb(out)=-3), and write it to /root/work/corner.txt (print fc redirected to the file).",
         "spice_value", value("corner", "fc", round(CORNER_HZ, 3), rel=0.02),
         start("rc.cir", {"corner": f"{WORK}/corner.txt"}),
         say("ac dec 50 10 100k", "meas ac fc WHEN vdb(out)=-3", f"print fc > {WORK}/corner.txt"),
         tags=TAGS, apps=APPS, knowledge=CARD),
    task("circuit-led-current", "L1",
         "ngspice's console is open with led.cir loaded (5 V through R1 330 ohm into the diode D1). Compute the DC "
         "operating point and write the current through the source V1, i(v1), to /root/work/current.txt (print "
         "redirected to the file).",
         "spice_value", value("current", "i(v1)", round(-I_LED, 8), rel=0.01),
         start("led.cir", {"current": f"{WORK}/current.txt"}), say("op", f"print i(v1) > {WORK}/current.txt"),
         tags=TAGS, apps=APPS, knowledge=CARD),
    task("circuit-design-divider", "L2",
         "ngspice's console is open with divider.cir loaded (12 V, R1 10k, R2 4.7k). Choose a new value for R2 so "
         "that the output v(out) is 5.00 V, set it, verify it with an operating point, and write v(out) to "
         "/root/work/vout.txt (print redirected to the file). The file must show 5 V within 10 mV.",
         "spice_value", value("vout", "v(out)", 5.0, tolerance=0.01),
         start("divider.cir", {"vout": f"{WORK}/vout.txt"}),
         say(f"alter r2 = {R_FOR_5V:.1f}", "op", f"print v(out) > {WORK}/vout.txt"), tags=TAGS, apps=APPS,
         knowledge=CARD + ["A divider's output is Vin * R2 / (R1 + R2)."]),
    task("circuit-alter-c-tran", "L2",
         "ngspice's console is open with rc.cir loaded. Replace C1 by 2.2 uF, run a transient analysis from 0 to "
         "10 ms with a 10 us step, and write v(out) over time to /root/work/step.txt with wrdata.",
         "spice_wave", {"artifact": "data", "x_range": [0, 10e-3], "tolerance": 0.02,
                        "points": [[t, round(5 * (1 - math.exp(-t / TAU2)), 4)] for t in (1e-3, 2.2e-3, 5e-3, 10e-3)]},
         start("rc.cir", {"data": f"{WORK}/step.txt"}),
         say("alter c1 = 2.2u", "tran 10u 10m", f"wrdata {WORK}/step.txt v(out)"), tags=TAGS, apps=APPS,
         knowledge=CARD),
    task("circuit-led-resistor", "L2",
         "ngspice's console is open with led.cir loaded (5 V, R1 330 ohm, diode D1). Choose R1 so that the diode "
         "carries 10 mA (within 0.2 mA), set it, verify it with an operating point, and write the current through "
         "V1, i(v1), to /root/work/current.txt (print redirected to the file).",
         "spice_value", value("current", "i(v1)", -0.01, tolerance=0.0002),
         start("led.cir", {"current": f"{WORK}/current.txt"}),
         say("op", "print v(a)", "alter r1 = 310", "op", f"print i(v1) > {WORK}/current.txt"),
         tags=TAGS, apps=APPS, knowledge=CARD + ["The resistor carries (5 V - the diode's voltage) / R1."]),
]

if __name__ == "__main__":
    write("circuit", tasks)
