"""The parity tests' org and SCUBA's evaluator, once per test session (and xdist worker): an embedded org
prepared as ``--scuba-root`` prepares it, and SCUBA's ``MilestoneEvaluator`` in a worker process reading it
through the real Salesforce CLI."""

from __future__ import annotations

from typing import Iterator

import pytest

from pytest_cua.envs.salesforce import SalesforceEnvironment
from pytest_cua.orgs.localorg.server import OrgServer
from pytest_cua.tasks.task import Task
from pytest_cua.testing.scuba_parity import ScubaEvaluation
from pytest_cua.testing.sfcli import INSTALL_HINT, find_sf
from suites.scuba import release

from .harness import ROOT


@pytest.fixture(scope="session")
def release_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SalesforceEnvironment, dict[str, Task]]]:
    """An embedded org prepared as ``--scuba-root`` prepares it (the metadata prerequisites deployed over the
    Metadata API, then the seed), and the release's tasks."""
    server = OrgServer(tmp_path_factory.mktemp("parity-org"), extensions=[])
    tasks = release.load_release(ROOT / release.ZERO_SHOT_FILE, demos=False)
    env = SalesforceEnvironment(server, None)
    report = release.SeedReport()
    release.install_metadata(env.org, ROOT / release.METADATA_DIR, report, tasks)
    release.install_seed(server.org, ROOT / release.SEED_DIR, report)
    release.install_org_defaults(server.org, report)
    release.install_custom_objects(server.org, tasks, report)
    yield env, {t.id: t for t in tasks}
    env.close()


@pytest.fixture(scope="session")
def scuba(release_env: tuple[SalesforceEnvironment, dict[str, Task]],
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[ScubaEvaluation]:
    if find_sf() is None:
        pytest.fail(f"the Salesforce CLI is missing: {INSTALL_HINT}")
    env, _ = release_env
    with ScubaEvaluation(ROOT, env.credentials, workdir=tmp_path_factory.mktemp("scuba-eval")) as evaluation:
        yield evaluation
