"""Orgs served elsewhere: ``org serve --write-entry`` (two real server processes share one orgs file), the orgs
file's errors (naming file and entry), leases with flock across processes, and a killed holder's lease taken
over with the org reset to its baseline."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from pytest_cua.orgs.pool import (OrgChoice, OrgsFileError, check_enough, lease_one, load_orgs, resolve_choice,
                                try_lease)

from .served import served_orgs


@pytest.fixture(scope="module")
def two_orgs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, dict]]]:
    with served_orgs(tmp_path_factory.mktemp("served"), ["org-a", "org-b"], ui=False) as got:
        yield got


@pytest.fixture
def leases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "leases"
    monkeypatch.setenv("PYTEST_CUA_ORG_LEASES", str(folder))
    return folder


def test_org_serve_writes_its_entry_mode_0600(two_orgs: tuple[Path, dict[str, dict]]) -> None:
    orgs_file, infos = two_orgs
    assert stat.S_IMODE(os.stat(orgs_file).st_mode) == 0o600
    entries = load_orgs(orgs_file)
    assert [e.name for e in entries] == ["org-a", "org-b"]
    for e in entries:
        info = infos[e.name]
        assert e.kind == "localorg" and e.instance_url == info["instance_url"]
        assert e.credentials().password == info["password"]
        assert info["password"] not in repr(e) and info["client_secret"] not in repr(e)


def _write(path: Path, orgs: dict[str, Any]) -> Path:
    path.write_text(json.dumps({"version": 1, "orgs": orgs}))
    return path


@pytest.mark.parametrize("entry, expected", [
    ({"kind": "localorg", "instance_url": "https://127.0.0.1:1"}, "needs the field(s) client_id, client_secret"),
    ({"kind": "cloud", "instance_url": "https://x"}, "unknown kind 'cloud'; known kinds: localorg, salesforce"),
    ({"kind": "salesforce", "instance_url": "http://x.my.salesforce.com", "client_key": "k", "client_secret": "s",
      "username": "u"}, "the instance URL must be https://, got 'http://x.my.salesforce.com'"),
    ({"kind": "salesforce", "instance_url": "https://x.my.salesforce.com", "client_key": "k"},
     "cannot tell how to log in: give auth (client_credentials, jwt or password) and its fields"),
    ({"kind": "salesforce", "instance_url": "https://x.my.salesforce.com", "auth": "jwt", "client_key": "k"},
     "auth jwt needs the field(s) username, private_key_path"),
    ({"kind": "salesforce", "instance_url": "https://x.my.salesforce.com", "password": "p", "passwd": "q"},
     "unknown field(s) passwd"),
    ({"kind": "salesforce", "instance_url": "https://x.my.salesforce.com", "username": "u", "password": "p",
      "ca_path": "nowhere.pem"}, "ca_path"),
    ("just a string", "expected an object"),
])
def test_bad_entries_name_file_and_entry(tmp_path: Path, entry: Any, expected: str) -> None:
    path = _write(tmp_path / "orgs.json", {"broken-org": entry})
    with pytest.raises(OrgsFileError) as info:
        load_orgs(path)
    assert f"orgs file {path}, entry 'broken-org': " in str(info.value) and expected in str(info.value)


def test_bad_files_are_named(tmp_path: Path, two_orgs: tuple[Path, dict[str, dict]]) -> None:
    missing = tmp_path / "none.json"
    with pytest.raises(OrgsFileError, match=f"orgs file {missing}: no such file"):
        load_orgs(missing)
    (tmp_path / "bad.json").write_text("{nope")
    with pytest.raises(OrgsFileError, match="not valid JSON"):
        load_orgs(tmp_path / "bad.json")
    raw = json.loads(two_orgs[0].read_text())
    same = _write(tmp_path / "same.json", {"one": raw["orgs"]["org-a"], "two": raw["orgs"]["org-a"]})
    with pytest.raises(OrgsFileError, match="entries 'one' and 'two' are the same org"):
        load_orgs(same)


def test_choice_and_worker_count(two_orgs: tuple[Path, dict[str, dict]]) -> None:
    orgs_file = two_orgs[0]

    class Opt:
        cua_org = None
        cua_orgs = str(orgs_file)

    choice = resolve_choice(Opt)
    assert choice.which == "pool" and len(choice.candidates()) == 2
    check_enough(choice, 2)
    with pytest.raises(ValueError, match=r"lists 2 org\(s\) \(org-a, org-b\) but -n 3 starts 3 workers"):
        check_enough(choice, 3)
    Opt.cua_org = "org-b"
    named = resolve_choice(Opt)
    assert [e.name for e in named.candidates()] == ["org-b"]
    with pytest.raises(ValueError, match="--cua-org org-b names one org but -n 2"):
        check_enough(named, 2)
    Opt.cua_org = "org-z"
    with pytest.raises(ValueError, match="no org named 'org-z'"):
        resolve_choice(Opt)
    Opt.cua_org, Opt.cua_orgs = "pool", None
    with pytest.raises(ValueError, match="give --cua-orgs FILE"):
        resolve_choice(Opt)
    assert resolve_choice(type("O", (), {"cua_org": None, "cua_orgs": None})) == OrgChoice("local", None)


def test_leases_are_exclusive_across_processes(two_orgs: tuple[Path, dict[str, dict]], leases: Path) -> None:
    entries = load_orgs(two_orgs[0])
    mine = lease_one(entries, worker_id="gw1", run_id="r1")
    assert mine.entry.name == "org-b"  # gw1 prefers the second org
    other = subprocess.run([sys.executable, "-c", (
        "import sys; from pytest_cua.orgs.pool import load_orgs, lease_one, try_lease\n"
        f"e = load_orgs({str(two_orgs[0])!r})\n"
        "print(try_lease(e[1], worker_id='gw9', run_id='r2') is None)\n"
        "print(lease_one(e, worker_id='gw1', run_id='r2', wait_s=0).entry.name)\n")],
        capture_output=True, text=True, timeout=60, env={**os.environ})
    assert other.stdout.split() == ["True", "org-a"], other.stderr
    assert try_lease(entries[1], worker_id="gw3", run_id="r1") is None  # a second lease in this process too
    mine.release()
    again = try_lease(entries[1], worker_id="gw3", run_id="r1")
    assert again is not None and not again.stale  # given back clean
    again.release(clean=False)
    dirty = try_lease(entries[1], worker_id="gw3", run_id="r1")
    assert dirty is not None and dirty.stale and "failed rollback" in dirty.stale_reason()
    dirty.release()


HOLDER = """
import os, sys, time
from pytest_cua.envs.salesforce import SalesforceEnvironment, ServedOrg
from pytest_cua.orgs.pool import lease_one, load_orgs
env = SalesforceEnvironment(ServedOrg(lease_one(load_orgs(sys.argv[1]), worker_id="gw0", run_id="killed-run")),
                            None, worker_id="gw0")
env.snapshot()
env.org.Lead.create({"LastName": "Half Done", "Company": "Killed Mid Task Ltd"})
print(os.getpid(), env.describe()["org"], flush=True)
time.sleep(600)
"""


def test_a_killed_holders_lease_is_taken_over_and_the_org_reset(two_orgs: tuple[Path, dict[str, dict]],
                                                                 leases: Path) -> None:
    from pytest_cua.envs.salesforce import SalesforceEnvironment, ServedOrg

    orgs_file = two_orgs[0]
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(orgs_file)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()  # type: ignore[union-attr]
        assert line, proc.stderr.read()  # type: ignore[union-attr]
        pid, org_name = line.split()
        assert org_name == "org-a"
    finally:
        proc.send_signal(signal.SIGKILL)  # mid-task: no rollback, no release
        proc.wait(timeout=20)
    entries = [e for e in load_orgs(orgs_file) if e.name == "org-a"]
    lease = lease_one(entries, worker_id="gw0", run_id="next-run", wait_s=5)
    assert lease.stale and f"pid {pid}" in lease.stale_reason() and "is gone" in lease.stale_reason()
    env = SalesforceEnvironment(ServedOrg(lease), None, worker_id="gw0")
    try:
        described = env.describe()
        assert described["org"] == "org-a" and "reset to its baseline" in described["org_reset"]
        assert not hasattr(env, "store")  # the worker never touches a served org's store
        assert env.org.query("SELECT COUNT() FROM Lead WHERE Company = 'Killed Mid Task Ltd'")["totalSize"] == 0
        from pytest_cua.orgs.localorg.control import BASELINE

        assert env.handle.control.residue(BASELINE) == []  # type: ignore[union-attr]
    finally:
        env.close()
    back = try_lease(entries[0], worker_id="gw0", run_id="third-run")
    assert back is not None and not back.stale
    back.release()
