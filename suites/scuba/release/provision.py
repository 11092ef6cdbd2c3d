"""The SCUBA suite's prerequisites installed into an org reached over its APIs only (a real org), idempotently:
the records wanted are those of a reference org built in process by the same code that prepares the embedded
org.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .deploy import custom_objects_package, deploy_over_api, install_custom_objects, install_metadata
from .org_defaults import install_org_defaults
from .prerequisites import METADATA_DIR
from .seed import SEED_DIR, SeedReport, install_seed
from .task_records import tasks_to_prepare


def provision_over_api(env: Any, client: Any, root: Path | None, demos: bool, suite: str) -> SeedReport:
    """The suite's prerequisites installed into an org reached over its APIs only, idempotently: the own tasks'
    seed (the embedded org's), and with ``root`` the release's metadata prerequisites (deployed) and its seed
    records, Developer Edition defaults and custom objects, upserted by their unique keys
    (``pytest_cua.orgs.realorg.provision``). The records wanted are those of a reference org built in process by
    the same code that prepares the embedded org."""
    import tempfile
    import time

    from pytest_cua.orgs.localorg.server import OrgServer
    from pytest_cua.orgs.realorg.provision import seed_objects, sync_records

    started = time.monotonic()
    report = SeedReport()
    with tempfile.TemporaryDirectory(prefix="pytest-cua-reference-org-") as tmp:
        reference = OrgServer(Path(tmp), extensions=[])
        reference.start()
        try:
            store = reference.org
            if root is not None:
                tasks = tasks_to_prepare(root, demos=demos, suite=suite)
                metadata = root / METADATA_DIR
                if metadata.is_dir():
                    ref_sf = _client_of(reference)
                    install_metadata(ref_sf, metadata, None, tasks)  # the reference's records follow from it
                    install_metadata(env.org, metadata, report, tasks)  # the target's: deploys are upserts
                have = {str(o.get("name")) for o in client.describe_global()}
                pkg = custom_objects_package(tasks, have.__contains__)
                if pkg.types:
                    deploy_over_api(env.org, pkg)
                install_seed(store, root / SEED_DIR, report)
                install_org_defaults(store, report)
                install_custom_objects(store, tasks, None)
            synced = sync_records(client, store, seed_objects(store))
        finally:
            reference.stop()
    handle = getattr(env, "handle", None)
    if handle is not None:
        handle.provisioning_note = synced.line()  # in the environment's record of every task
    report.installed.update({f"found {n}": c for n, c in synced.found.items() if c})
    report.installed.update({n: c for n, c in synced.created.items() if c})
    report.notes += [f"over the API: {synced.line()}", *synced.notes[:50]]
    report.seconds = time.monotonic() - started
    return report


def _client_of(server: Any) -> Any:
    from simple_salesforce import Salesforce

    creds = server.org_credentials
    return Salesforce(instance_url=creds.instance_url, session_id=server.access_token(),
                      session=creds.requests_session(), version="59.0")
