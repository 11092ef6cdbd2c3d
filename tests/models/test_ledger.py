"""The run's cost ledger: totals, caps, per-task spend, corrupt files, and several processes at once."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import pytest

from pytest_cua.agents.models.ledger import CostLedger, LedgerError

PROCESSES = 4
ADDS = 50
AMOUNT = 0.0123


def add_many(path: str, worker: str, barrier) -> None:
    """One worker process: wait for the others, then add ``ADDS`` amounts to its own task and a shared one."""
    ledger = CostLedger(Path(path), cap_usd=None)
    barrier.wait()
    for i in range(ADDS):
        ledger.add(AMOUNT, task_id=f"{worker}-task" if i % 2 else "shared", worker=worker)


def test_a_fresh_ledger_is_empty_and_creates_its_folder(tmp_path):
    path = tmp_path / "run" / "nested" / "cost.json"
    ledger = CostLedger(path, cap_usd=1.0)
    assert path.parent.is_dir()
    assert ledger.total() == 0.0 and ledger.entries() == {} and not ledger.exhausted()


def test_add_returns_the_run_total_and_keeps_spend_per_task(tmp_path):
    ledger = CostLedger(tmp_path / "cost.json", cap_usd=None)
    assert ledger.add(0.25, task_id="t1", worker="gw0") == 0.25
    assert ledger.add(0.5, task_id="t2", worker="gw1") == 0.75
    assert ledger.add(0.125, task_id="t1", worker="gw1") == 0.875
    assert ledger.total() == 0.875
    assert ledger.entries() == {"t1": 0.375, "t2": 0.5}


def test_the_file_is_shared_by_ledgers_on_the_same_path(tmp_path):
    path = tmp_path / "cost.json"
    CostLedger(path, cap_usd=None).add(0.1, task_id="t1", worker="gw0")
    other = CostLedger(path, cap_usd=None)
    assert other.add(0.2, task_id="t2", worker="gw1") == pytest.approx(0.3)
    saved = json.loads(path.read_text())
    assert saved["tasks"] == {"t1": 0.1, "t2": 0.2}
    assert saved["workers"] == {"gw0": 0.1, "gw1": 0.2}
    assert (tmp_path / "cost.json.lock").exists()


def test_totals_are_kept_to_the_nano_dollar(tmp_path):
    ledger = CostLedger(tmp_path / "cost.json", cap_usd=None)
    for _ in range(10):
        ledger.add(0.1, task_id="t", worker="gw0")
    assert ledger.total() == 1.0
    assert ledger.add(0.0000000004, task_id="t", worker="gw0") == 1.0


def test_exhausted_when_the_total_reaches_the_cap(tmp_path):
    ledger = CostLedger(tmp_path / "cost.json", cap_usd=0.5)
    ledger.add(0.25, task_id="t1", worker="gw0")
    assert not ledger.exhausted()
    ledger.add(0.25, task_id="t2", worker="gw0")
    assert ledger.exhausted()


def test_no_cap_is_never_exhausted(tmp_path):
    ledger = CostLedger(tmp_path / "cost.json", cap_usd=None)
    ledger.add(1000.0, task_id="t", worker="gw0")
    assert not ledger.exhausted()


def test_zero_cap_is_exhausted_from_the_start(tmp_path):
    assert CostLedger(tmp_path / "cost.json", cap_usd=0).exhausted()


@pytest.mark.parametrize("usd", [-0.01, float("nan"), float("inf"), "0.1", True])
def test_bad_amount_is_refused(tmp_path, usd):
    ledger = CostLedger(tmp_path / "cost.json", cap_usd=None)
    with pytest.raises(ValueError, match="non-negative number of dollars"):
        ledger.add(usd, task_id="t", worker="gw0")
    assert ledger.total() == 0.0


@pytest.mark.parametrize("cap", [-1, float("nan"), "5"])
def test_bad_cap_is_refused(tmp_path, cap):
    with pytest.raises(ValueError, match="cost cap"):
        CostLedger(tmp_path / "cost.json", cap_usd=cap)


def test_an_empty_file_is_an_empty_ledger(tmp_path):
    path = tmp_path / "cost.json"
    path.write_text("")
    assert CostLedger(path, cap_usd=None).add(0.5, task_id="t", worker="gw0") == 0.5


@pytest.mark.parametrize("content, message", [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "must be a JSON object"),
    ('{"tasks": {}, "workers": {}}', "total_usd: expected a number"),
    ('{"total_usd": 1, "tasks": [], "workers": {}}', "tasks: expected an object"),
    ('{"total_usd": 1, "tasks": {"t1": "a lot"}, "workers": {}}', "tasks.t1: expected a number"),
])
def test_a_corrupt_file_is_an_error_naming_the_file(tmp_path, content, message):
    path = tmp_path / "cost.json"
    path.write_text(content)
    ledger = CostLedger(path, cap_usd=None)
    for call in (ledger.total, ledger.entries, lambda: ledger.add(0.1, task_id="t", worker="gw0")):
        with pytest.raises(LedgerError, match=message) as info:
            call()
        assert str(info.value).startswith(f"{path}: ")
    assert path.read_text() == content


def test_several_processes_add_without_losing_any(tmp_path):
    path = tmp_path / "cost.json"
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(PROCESSES)
    workers = [context.Process(target=add_many, args=(str(path), f"gw{n}", barrier)) for n in range(PROCESSES)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(timeout=120)
    assert [process.exitcode for process in workers] == [0] * PROCESSES

    ledger = CostLedger(path, cap_usd=None)
    expected = round(PROCESSES * ADDS * AMOUNT, 9)
    assert ledger.total() == expected
    entries = ledger.entries()
    assert entries["shared"] == round(PROCESSES * ADDS / 2 * AMOUNT, 9)
    assert all(entries[f"gw{n}-task"] == round(ADDS / 2 * AMOUNT, 9) for n in range(PROCESSES))
    assert json.loads(path.read_text())["workers"] == {f"gw{n}": round(ADDS * AMOUNT, 9)
                                                       for n in range(PROCESSES)}
