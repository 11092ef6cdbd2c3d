"""Fixtures of the localorg tests: one seeded org per module for store tests, one HTTPS server per session."""

from __future__ import annotations

from typing import Iterator

import pytest

from pytest_cua.orgs.localorg.seed import seeded_org
from pytest_cua.orgs.localorg.server import OrgCredentials, OrgServer
from pytest_cua.orgs.localorg.store import Org


@pytest.fixture(scope="module")
def _module_org() -> Org:
    return seeded_org()


@pytest.fixture
def org(_module_org: Org) -> Iterator[Org]:
    """The seeded org, rolled back after the test (and proven clean)."""
    snap = _module_org.snapshot()
    yield _module_org
    _module_org.restore(snap)
    assert _module_org.residue(snap) == []


@pytest.fixture(scope="session")
def org_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OrgServer]:
    """A running org server on 127.0.0.1 (one per session)."""
    # extensions=[]: these tests cover the backend; the UI package has its own tests
    server = OrgServer(tmp_path_factory.mktemp("orgdata"), host="127.0.0.1", port=0, extensions=[])
    server.start()
    yield server
    server.stop()


@pytest.fixture
def creds(org_server: OrgServer) -> Iterator[OrgCredentials]:
    """Credentials of the running server; the server's org is rolled back after the test."""
    snap = org_server.org.snapshot()
    assert org_server.org_credentials is not None
    yield org_server.org_credentials
    org_server.org.restore(snap)


@pytest.fixture
def sf(org_server: OrgServer, creds: OrgCredentials):  # type: ignore[no-untyped-def]
    """simple-salesforce, unchanged, logged in with an OAuth client-credentials token over HTTPS."""
    from simple_salesforce import Salesforce

    session = creds.requests_session()
    token = creds.login("client_credentials", session=session)
    return Salesforce(instance_url=creds.instance_url, session_id=token, session=session)
