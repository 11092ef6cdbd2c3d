"""The vm provider's settings, the desktop choice (``--cua-desktop vm`` serves the suites that name ``docker``),
the memory cap on ``-n`` (a usage error naming the figures), and the preflight's refusal without KVM. None of
these start a guest."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from pytest_cua.envs.vm.options import VmSettingsError, desktop_choice, guests_that_fit, resolve_settings
from pytest_cua.envs.vm.provider import check_guests_fit

ROOT = Path(__file__).resolve().parents[2]


def _pytest(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=180, env={**os.environ, **(env or {})})


def test_settings_come_from_the_options_then_the_suite() -> None:
    suite = SimpleNamespace(name="prosoft", environment_options={"image": "cua-desktop-pro", "memory": "3g"})
    assert resolve_settings(None, suite).image == "cua-desktop-pro"  # a container's memory is not the guest's
    option = SimpleNamespace(cua_vm_image="cua-desktop-office", cua_vm_memory=3072, cua_vm_cpus=None,
                             cua_vm_build=None)
    settings = resolve_settings(SimpleNamespace(option=option), suite)
    assert (settings.image, settings.memory_mb, settings.cpus) == ("cua-desktop-office", 3072, 2)


def test_bad_settings_name_where_they_came_from() -> None:
    with pytest.raises(VmSettingsError, match=r"suite 'x': environment_options\['gpu'\]"):
        resolve_settings(None, SimpleNamespace(name="x", environment_options={"gpu": 1}))
    option = SimpleNamespace(cua_vm_image=None, cua_vm_memory=100, cua_vm_cpus=None, cua_vm_build=None)
    with pytest.raises(VmSettingsError, match=r"--cua-vm-memory: memory_mb=100: must be at least 256"):
        resolve_settings(SimpleNamespace(option=option))


def test_the_desktop_choice_reads_the_option_then_the_ini_key() -> None:
    def config(option: str | None, ini: str) -> SimpleNamespace:
        return SimpleNamespace(option=SimpleNamespace(cua_desktop=option), getini=lambda name: ini)

    assert desktop_choice(config(None, "")) == ("docker", "default")
    assert desktop_choice(config(None, "vm")) == ("vm", "ini cua_desktop")
    assert desktop_choice(config("docker", "vm")) == ("docker", "--cua-desktop")
    with pytest.raises(VmSettingsError, match="ini cua_desktop='qemu'"):
        desktop_choice(config(None, "qemu"))


def test_guests_are_capped_by_the_hosts_memory() -> None:
    assert guests_that_fit(2048, available_mb=24000) == 9
    check_guests_fit(9, 2048, available_mb=24000)
    with pytest.raises(pytest.UsageError, match=r"-n 10 asks for 10 guest\(s\) of 2048 MiB .* 24000 MiB "
                                                r"available, room for 9: run with -n 9 or fewer"):
        check_guests_fit(10, 2048, available_mb=24000)


def test_too_many_workers_is_a_usage_error_before_anything_runs(tmp_path: Path) -> None:
    (tmp_path / "test_x.py").write_text("def test_x():\n    pass\n")
    out = _pytest(tmp_path, "--cua-desktop", "vm", "--cua-vm-memory", "65536", "-n", "2")
    assert out.returncode == 4, out.stdout + out.stderr  # pytest's usage error
    assert "-n 2 asks for 2 guest(s) of 65536 MiB" in out.stderr


def test_cua_desktop_vm_serves_the_suites_that_name_docker(tmp_path: Path) -> None:
    (tmp_path / "test_x.py").write_text(
        "from pytest_cua.envs.registry import providers\n"
        "def test_x(pytestconfig):\n"
        "    assert providers()['docker'].name == ('vm' if pytestconfig.getoption('cua_desktop') else 'docker')\n")
    assert _pytest(tmp_path, "--cua-desktop", "vm").returncode == 0
    assert _pytest(tmp_path).returncode == 0
    (tmp_path / "pytest.ini").write_text("[pytest]\ncua_desktop = vm\n")
    (tmp_path / "test_x.py").write_text(
        "from pytest_cua.envs.registry import providers\n"
        "def test_x():\n    assert providers()['docker'].name == 'vm'\n")
    assert _pytest(tmp_path).returncode == 0


def test_the_preflight_refuses_without_kvm(monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_cua.envs.vm import preflight

    monkeypatch.setenv("PYTEST_CUA_KVM_DEVICE", "/nonexistent/kvm")
    problem = preflight.preflight(None, SimpleNamespace(name="s", environment_options={}))
    assert problem is not None and "vm desktops need KVM: /nonexistent/kvm" in problem
    assert "never emulated" in problem


def test_the_kvm_backend_is_named(tmp_path: Path) -> None:
    from pytest_cua.envs.vm.preflight import kvm_backend

    (tmp_path / "kvm_pvm").mkdir()
    assert kvm_backend(str(tmp_path)) == "kvm_pvm"
    (tmp_path / "kvm_amd").mkdir()
    assert kvm_backend(str(tmp_path)) == "kvm_amd"
