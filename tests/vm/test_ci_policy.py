"""The VM tests skip with the reason when the machine cannot run guests (no KVM device, or a KVM that runs no
Debian kernel), under CI too: no install step can give a machine hardware virtualisation. What the install script
provides (QEMU) fails the run under CI when it is missing, as the Docker tests do without a dockerd."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GUEST_TEST = "tests/vm/test_guest.py::test_restore_removes_what_a_task_wrote_and_started"


def _run(ci: str | None, **env_changes: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env.update(env_changes)
    if ci is not None:
        env["CI"] = ci
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rsf", "-q", GUEST_TEST],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_skips_without_a_kvm_device_under_ci_too() -> None:
    for ci in (None, "true"):
        out = _run(ci, PYTEST_CUA_KVM_DEVICE="/nonexistent/kvm")
        assert out.returncode == 0, out.stdout + out.stderr
        assert "1 skipped" in out.stdout and "no KVM: /nonexistent/kvm" in out.stdout


def test_fails_without_qemu_under_ci(tmp_path: Path) -> None:
    """PATH with python and nothing else: QEMU's programs are not found."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)
    assert shutil.which("qemu-system-x86_64", path=str(bin_dir)) is None
    out = _run("true", PATH=str(bin_dir))
    assert out.returncode != 0
    assert "CI is set and QEMU is missing" in out.stdout, out.stdout + out.stderr
