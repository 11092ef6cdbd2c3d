"""Fixtures of the SCUBA template tests: an embedded org over HTTPS without a browser."""

from __future__ import annotations

from typing import Iterator

import pytest

from pytest_cua.envs.salesforce import SalesforceEnvironment
from pytest_cua.orgs.localorg.server import OrgServer


@pytest.fixture(scope="module")
def org_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SalesforceEnvironment]:
    """An embedded org without a browser, for one test module."""
    server = OrgServer(tmp_path_factory.mktemp("scuba-org"), extensions=[])
    env = SalesforceEnvironment(server, None)
    yield env
    env.close()


@pytest.fixture
def env(org_env: SalesforceEnvironment) -> Iterator[SalesforceEnvironment]:
    """The org, restored to the seed after the test (and proven clean)."""
    snap = org_env.snapshot()
    yield org_env
    org_env.restore(snap)
    assert org_env.residue(snap) == []
