"""Recipes (no docker needed) and image builds with caching (a tiny recipe on a tiny base of its own)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_cua.envs.docker.recipes import RecipeError, load_recipe


def _write(path: Path, data: dict) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_recipe_errors_name_the_file_and_field(tmp_path: Path) -> None:
    bad = _write(tmp_path / "cua-bad.json", {"packages": "xterm"})
    with pytest.raises(RecipeError, match=r"cua-bad.json: field 'packages' must be a list"):
        load_recipe(bad)
    unknown = _write(tmp_path / "cua-unknown.json", {"pakages": ["xterm"]})
    with pytest.raises(RecipeError, match=r"cua-unknown.json: field 'pakages' is not a recipe field"):
        load_recipe(unknown)
    missing = _write(tmp_path / "cua-missing.json", {"files": [{"src": "nope.py", "dest": "/opt/nope.py"}]})
    with pytest.raises(RecipeError, match=r"field 'files\[0\]': src 'nope.py' does not exist"):
        load_recipe(missing)
    orphan = _write(tmp_path / "cua-orphan.json", {"base": "cua-no-such-base"})
    with pytest.raises(RecipeError, match=r"field 'base': no image recipe 'cua-no-such-base'"):
        load_recipe(orphan)


def test_shipped_recipes_load_and_chain() -> None:
    office = load_recipe("cua-desktop-office")
    assert [r.name for r in office.chain()] == ["cua-desktop-base", "cua-desktop-office"]
    assert office.effective_cmd()[:2] == ["python3", "/opt/cua/executor.py"]
    assert office.effective_env()["DISPLAY"] == ":0"


def test_hash_follows_copied_files_and_base(tmp_path: Path) -> None:
    payload = tmp_path / "payload.txt"
    payload.write_text("one")
    recipe = _write(tmp_path / "cua-hash.json", {"base": "cua-desktop-base",
                                                  "files": [{"src": "payload.txt", "dest": "/opt/p.txt"}]})
    first = load_recipe(recipe).recipe_hash()
    assert load_recipe(recipe).recipe_hash() == first
    payload.write_text("two")
    assert load_recipe(recipe).recipe_hash() != first


def _cat(client: Any, path: str) -> bytes:
    container = client.containers.run("cua-test-tiny:latest", ["cat", path], network_mode="none", detach=True)
    try:
        container.wait(timeout=60)
        return container.logs(stdout=True, stderr=False)
    finally:
        container.remove(force=True)


@pytest.mark.slow
@pytest.mark.docker
def test_build_labels_caches_and_rebuilds_on_change(base_image: str, docker_client: Any, tmp_path: Path) -> None:
    from pytest_cua.envs.docker.images import LABEL_BUILT, LABEL_HASH, build_image, cache_dir

    marker = tmp_path / "marker.txt"
    marker.write_text("first")
    # a base of its own, on the cached debootstrap stage (a third of cua-desktop-base's root file system: each
    # build below unpacks, packs and imports it)
    _write(tmp_path / "cua-test-tinybase.json", {"debian": {"suite": "bookworm", "variant": "minbase"}})
    path = _write(tmp_path / "cua-test-tiny.json", {
        "base": "cua-test-tinybase", "files": [{"src": "marker.txt", "dest": "/opt/cua/marker.txt"}],
        "labels": {"pytest-cua.test": "tiny"}})
    lines: list[str] = []
    try:
        # two builds of one recipe at once (as two xdist workers do): one builds, the other waits and skips
        from concurrent.futures import ThreadPoolExecutor

        from pytest_cua.envs.docker.images import docker_client as new_client

        def build_once(_: int) -> Any:
            client = new_client()
            try:
                return build_image(load_recipe(path), client=client, progress=lines.append)
            finally:
                client.close()

        with ThreadPoolExecutor(2) as pool:
            results = list(pool.map(build_once, range(2)))
        assert sorted(r.skipped for r in results) == [False, True], lines
        built = next(r for r in results if not r.skipped)
        assert built.size_bytes > 0
        assert any("unpack base cua-test-tinybase" in line for line in lines), lines
        labels = docker_client.images.get("cua-test-tiny:latest").labels
        assert labels[LABEL_HASH] == built.recipe_hash and labels[LABEL_BUILT]
        assert labels["pytest-cua.test"] == "tiny"
        assert _cat(docker_client, "/opt/cua/marker.txt") == b"first"

        again = build_image(load_recipe(path), client=docker_client, progress=lines.append)
        assert again.skipped and again.recipe_hash == built.recipe_hash

        marker.write_text("second")
        changed = build_image(load_recipe(path), client=docker_client, progress=lines.append)
        assert not changed.skipped and changed.recipe_hash != built.recipe_hash
        assert _cat(docker_client, "/opt/cua/marker.txt") == b"second"
    finally:
        for name in ("cua-test-tiny", "cua-test-tinybase"):
            try:
                docker_client.images.remove(f"{name}:latest", force=True)
            except Exception:
                pass
            for tar in (cache_dir() / "rootfs").glob(f"{name}-*.tar"):
                tar.unlink()


@pytest.mark.docker
@pytest.mark.usefixtures("docker_client")
def test_a_build_without_the_builders_programs_is_one_line_naming_the_fix(tmp_path: Path) -> None:
    """No debootstrap on PATH (Debian keeps it in sbin: PATH without the sbin folders) and an empty build cache:
    ``pytest-cua image build`` says what is missing and what to run, in one line, with no traceback."""
    path = os.pathsep.join(d for d in os.environ["PATH"].split(os.pathsep) if not d.rstrip("/").endswith("sbin"))
    proc = subprocess.run([sys.executable, "-m", "pytest_cua.cli", "image", "build", "cua-desktop-base", "--force"],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PATH": path, "PYTEST_CUA_CACHE": str(tmp_path / "cache")})
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert "step 'debootstrap' needs the program 'debootstrap', which this machine lacks: run `bash " \
           "scripts/install.sh --docker` (as root)" in line, line
