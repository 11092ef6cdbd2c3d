"""Orgs served by ``pytest-cua org serve`` subprocesses on 127.0.0.1, written into one orgs file (for the tests
of leases here and of the SCUBA suite on served orgs)."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Iterator


@contextlib.contextmanager
def served_orgs(folder: Path, names: list[str], *, ui: bool = True, kind: str = "localorg",
                extra: list[str] | None = None) -> Iterator[tuple[Path, dict[str, dict]]]:
    """Start one ``org serve --write-entry`` per name (entries of ``kind``; ``extra``: more ``org serve``
    options); yield the orgs file and each org's printed JSON line."""
    orgs_file = folder / "orgs.json"
    procs: list[subprocess.Popen] = []
    infos: dict[str, dict] = {}
    try:
        for name in names:
            cmd = [sys.executable, "-m", "pytest_cua.cli", "org", "serve", "--data-dir", str(folder / name),
                   "--port", "0", "--write-entry", str(orgs_file), "--name", name, "--entry-kind", kind,
                   *([] if ui else ["--no-ui"]), *(extra or [])]
            procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        for name, proc in zip(names, procs):
            line = proc.stdout.readline()  # type: ignore[union-attr]
            if not line:
                raise RuntimeError(f"org serve {name} printed nothing: {proc.stderr.read()}")  # type: ignore[union-attr]
            infos[name] = json.loads(line)
        yield orgs_file, infos
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
