"""Options and markers of the SCUBA suite.

``--scuba-root PATH`` is registered here, so it is known when ``suites/scuba`` (or a file in it) is among the
paths given to pytest: ``pytest suites/scuba --scuba-root ~/SCUBA``. pytest reads a directory's conftest.py
before parsing the command line only for the paths it is given; run from elsewhere, name the folder.
"""

from __future__ import annotations

from typing import Any

import pytest

RELEASE_MARKER = "scuba_release"
#: --scuba-scoring's words -> the suite's scorings (test_scuba.py: its own "corrected", SCUBA's "scuba")
SCORINGS = {"corrected": "corrected", "exact": "scuba"}
OWN_MARKER = "scuba_own"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("scuba", "SCUBA suite (suites/scuba)")
    group.addoption("--scuba-root", dest="scuba_root", default=None, metavar="PATH",
                    help="a checkout of the public SCUBA repository: also run its release tasks "
                         "(data/test_zero_shot.json, or data/test_demo_aug.json with --demos) on an org seeded "
                         "with its prerequisites (scuba/prerequisites/data/bulk_data)")
    group.addoption("--scuba-scoring", dest="cua_scoring", type=_scoring, default=None, metavar="exact|corrected",
                    help="which score decides passed / failed, the summary and the gate: corrected (default: "
                         "ours, with the corrections DEVIATIONS.md lists) or exact (SCUBA's evaluator's rules as "
                         "they are, its bugs included: comparable with SCUBA's published table). Every record "
                         "carries both (score, score_scuba). Same as --cua-scoring corrected|scuba")


def _scoring(text: str) -> str:
    import argparse

    if text not in SCORINGS:
        raise argparse.ArgumentTypeError(f"{text!r} is not one of {', '.join(SCORINGS)}")
    return SCORINGS[text]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{RELEASE_MARKER}: a task of SCUBA's release (--scuba-root)")
    config.addinivalue_line("markers", f"{OWN_MARKER}: one of the SCUBA suite's own tasks (suites/scuba/tasks)")


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    from .release.seed import SEED_DIR
    from .release.suite import demos_wanted, release_root
    from .release.task_records import release_file

    root = release_root(config)
    if root is None:
        return None
    path = release_file(root, demos=demos_wanted(config))
    seed = root / SEED_DIR
    line, notes = _seed_dry_run(seed)
    lines = [f"scuba release: {path}", f"scuba release seed: {seed}: {line}"]
    if config.getoption("verbose") > 0:
        lines += [f"  {note}" for note in notes]
    return lines


def _seed_dry_run(seed: Any) -> tuple[str, list[str]]:
    """The release's seed records installed into a throw-away org: what each worker's org will get."""
    from pytest_cua.orgs.localorg.seed import seeded_org

    from .release.org_defaults import install_org_defaults
    from .release.seed import install_seed

    try:
        org = seeded_org()
        report = install_seed(org, seed)
        install_org_defaults(org, report)
    except Exception as exc:  # shown here, raised again when a worker provisions its org
        return f"does not install: {type(exc).__name__}: {exc}", []
    return report.line(), report.notes


def pytest_collection_modifyitems(config: pytest.Config, items: list[Any]) -> None:
    """Mark release tasks ``scuba_release`` and the suite's own tasks ``scuba_own`` (``-m scuba_release``)."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        task = callspec.params.get("cua_task") if callspec is not None else None
        if task is None or getattr(task, "suite", None) != "scuba":
            continue
        item.add_marker(RELEASE_MARKER if task.extra.get("release") else OWN_MARKER)
