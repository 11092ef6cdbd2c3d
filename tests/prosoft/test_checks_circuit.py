"""The circuit evaluators (``spice_value``, ``spice_wave``: checks/circuit.py) without docker: the files ngspice
writes for each task pass, near misses fail the milestone that names them (the right analysis with a wrong
parameter, a value of the wrong vector, the file written somewhere else, no file at all), and a missing file
fails every milestone without an error.

Files are written here as ngspice 39 writes them: ``print v(out) > FILE`` gives ``v(out) = 3.836735e+00``;
``wrdata FILE vec`` gives rows of ``x y`` (scale and value, one pair per vector), both checked in the
container by the replay runs. The curves are the closed-form ones of fixtures/prosoft/circuit/make_fixtures.py;
the ground truths are those of the generated tasks (suites/prosoft/tasks/circuit.json).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Callable

import pytest

from suites.prosoft.make.common import fixtures_module

from .evaluation import failed, milestones, truth_of

ROOT = Path(__file__).resolve().parents[2]
TASKS = {t["id"]: t for t in json.loads((ROOT / "suites/prosoft/tasks/circuit.json").read_text())["tasks"]}
circuit = fixtures_module("circuit")


def run(task_id: str, files: dict[str, Path]) -> dict[str, str | None]:
    task = TASKS[task_id]
    return milestones(task["template"], truth_of(TASKS, task_id, task["template"]), files)


def printed(path: Path, vector: str, value: float) -> Path:
    path.write_text(f"{vector} = {value:e}\n", encoding="utf-8")
    return path


def wrdata(path: Path, xs: list[float], f: Callable[[float], float]) -> Path:
    path.write_text("".join(f" {x:e}  {f(x):e} \n" for x in xs), encoding="utf-8")
    return path


def steps(stop: float, step: float) -> list[float]:
    return [i * step for i in range(int(round(stop / step)) + 1)]


def decades(lo: float, hi: float, per: int) -> list[float]:
    n = int(round(math.log10(hi / lo) * per))
    return [lo * 10 ** (i / per) for i in range(n + 1)]


def divider(v_in: float = 12.0, r2: float = 4.7e3) -> float:
    return circuit.divider_out(r2=r2, v_in=v_in)


# --- values written by print --------------------------------------------------------------------------------------

@pytest.mark.parametrize("task_id,name,vector,right,wrong", [
    ("circuit-op-divider", "vout", "v(out)", divider(), divider(r2=10e3)),
    ("circuit-alter-r2", "vout", "v(out)", 6.0, divider()),  # the value never changed: the old output
    ("circuit-meas-rise", "rise", "trise", circuit.RISE_10_90 * 1.005, circuit.TAU),  # 10-90 % vs. tau
    ("circuit-meas-corner", "corner", "fc", 159.3, 159.15 * 2),
    ("circuit-led-current", "current", "i(v1)", -0.0093863, -0.01),
    ("circuit-design-divider", "vout", "v(out)", 5.004, 5.02),  # 20 mV off: outside the 10 mV asked for
    ("circuit-led-resistor", "current", "i(v1)", -0.009981, -0.009386),  # R1 left at 330 ohm
])
def test_printed_values(tmp_path: Path, task_id: str, name: str, vector: str, right: float, wrong: float) -> None:
    assert not failed(run(task_id, {name: printed(tmp_path / "right.txt", vector, right)}))
    assert failed(run(task_id, {name: printed(tmp_path / "wrong.txt", vector, wrong)}))
    # the right number printed under another vector's name (v(in) for v(out)): no value of the vector asked for
    other = run(task_id, {name: printed(tmp_path / "other.txt", "v(in)", right)})
    assert "no value of" in str(next(iter(other.values())))
    # nothing saved where the task asks
    assert all(run(task_id, {}).values())


def test_a_bare_value_and_an_error_message(tmp_path: Path) -> None:
    (tmp_path / "v.txt").write_text("3.836735\n")  # the value alone (written another way): what was asked
    assert not failed(run("circuit-op-divider", {"vout": tmp_path / "v.txt"}))
    (tmp_path / "w.txt").write_text("3.9\n")
    assert failed(run("circuit-op-divider", {"vout": tmp_path / "w.txt"}))
    (tmp_path / "junk.txt").write_text("Error: no such vector v(out)\n")
    result = run("circuit-op-divider", {"vout": tmp_path / "junk.txt"})
    assert failed(result) == ["vout v(out) = 3.83674"]


# --- curves written by wrdata -------------------------------------------------------------------------------------

def test_transient(tmp_path: Path) -> None:
    right = wrdata(tmp_path / "a.txt", steps(5e-3, 10e-6), circuit.rc_step)
    assert not failed(run("circuit-tran-rc", {"data": right}))
    short = wrdata(tmp_path / "b.txt", steps(2e-3, 10e-6), circuit.rc_step)  # stopped at 2 ms instead of 5 ms
    assert set(failed(run("circuit-tran-rc", {"data": short}))) == {
        "data covers 0 .. 0.005", "data passes (0.003, 4.751)", "data passes (0.005, 4.966)"}
    slow = wrdata(tmp_path / "c.txt", steps(5e-3, 10e-6), lambda t: 5 * (1 - math.exp(-t / 2.2e-3)))  # other C
    assert len(failed(run("circuit-tran-rc", {"data": slow}))) == 5
    vin = wrdata(tmp_path / "d.txt", steps(5e-3, 10e-6), lambda t: 5.0)  # v(in) written instead of v(out)
    assert failed(run("circuit-tran-rc", {"data": vin}))
    assert all(run("circuit-tran-rc", {}).values())


def test_alter_then_transient(tmp_path: Path) -> None:
    right = wrdata(tmp_path / "a.txt", steps(10e-3, 10e-6), lambda t: 5 * (1 - math.exp(-t / 2.2e-3)))
    assert not failed(run("circuit-alter-c-tran", {"data": right}))
    unchanged = wrdata(tmp_path / "b.txt", steps(10e-3, 10e-6), circuit.rc_step)  # C1 left at 1 uF
    assert len(failed(run("circuit-alter-c-tran", {"data": unchanged}))) >= 3


def test_bode(tmp_path: Path) -> None:
    right = wrdata(tmp_path / "a.txt", decades(10, 1e5, 20), circuit.rc_gain_db)
    assert not failed(run("circuit-ac-bode", {"data": right}))
    linear = wrdata(tmp_path / "b.txt", decades(10, 1e5, 20),
                    lambda f: 10 ** (circuit.rc_gain_db(f) / 20))  # v(out) (magnitude), not vdb(out)
    assert len(failed(run("circuit-ac-bode", {"data": linear}))) >= 4
    narrow = wrdata(tmp_path / "c.txt", decades(10, 1e3, 20), circuit.rc_gain_db)  # stopped at 1 kHz
    assert "data covers 10 .. 100000" in failed(run("circuit-ac-bode", {"data": narrow}))


def test_dc_sweep(tmp_path: Path) -> None:
    volts = steps(12, 0.5)
    assert not failed(run("circuit-dc-sweep", {"data": wrdata(tmp_path / "a.txt", volts, lambda v: divider(v))}))
    few = wrdata(tmp_path / "b.txt", steps(12, 2), lambda v: divider(v))  # a step of 2 V: 7 rows, not 25
    assert failed(run("circuit-dc-sweep", {"data": few})) == ["data holds simulation data"]
    other_r = wrdata(tmp_path / "c.txt", volts, lambda v: divider(v, r2=10e3))
    assert len(failed(run("circuit-dc-sweep", {"data": other_r}))) == 3  # every point but 0 V


def test_files_that_are_not_data(tmp_path: Path) -> None:
    (tmp_path / "log.txt").write_text("Circuit: * RC low-pass\nDoing analysis at TEMP = 27.000000\n")
    assert all(run("circuit-tran-rc", {"data": tmp_path / "log.txt"}).values())
    (tmp_path / "empty.txt").write_text("")
    assert all(run("circuit-ac-bode", {"data": tmp_path / "empty.txt"}).values())
    (tmp_path / "bin.txt").write_bytes(b"\x00\xff\x10binary raw file")
    assert all(run("circuit-dc-sweep", {"data": tmp_path / "bin.txt"}).values())


def test_every_task_has_a_case() -> None:
    covered = {"circuit-op-divider", "circuit-alter-r2", "circuit-meas-rise", "circuit-meas-corner",
               "circuit-led-current", "circuit-design-divider", "circuit-led-resistor", "circuit-tran-rc",
               "circuit-alter-c-tran", "circuit-ac-bode", "circuit-dc-sweep"}
    assert covered == set(TASKS)
