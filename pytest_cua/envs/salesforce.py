"""The ``salesforce`` environment: an org plus a browser logged in to it.

Per xdist worker: an embedded org (``pytest_cua.localorg.OrgServer`` on 127.0.0.1, its own data folder named
after the worker) and one Chromium. Evaluators and oracle solvers read and write the org through ``env.org``,
a simple-salesforce client over real HTTPS; the agent works through the browser, which logs in by frontdoor
with a session token (no password is typed). Rollback restores the org's records (within the template's
scope) and opens a fresh browser context; ``residue`` checks the whole org and the browser.

Options: ``--cua-org local`` (default; the embedded org). A real org is the same code path with another
backend; its record-level rollback is not part of this provider yet, so asking for one is a clear error.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from pytest_cua.envs.base import EnvContext, Environment, EnvironmentProvider, ProvisioningError, Snapshot
from pytest_cua.redaction import register_secrets

if TYPE_CHECKING:
    from pytest_cua.actions import Action, ActionResult
    from pytest_cua.envs.browser import BrowserEnvironment
    from pytest_cua.localorg.server import OrgServer
    from pytest_cua.observations import Observation
    from pytest_cua.tasks import Task

API_VERSION = "59.0"


@dataclass
class _OrgSnapshot:
    org: Any
    browser: Snapshot | None


class SalesforceEnvironment(Environment):
    """An org (``server.org`` is the store, ``org`` the API client) and an optional browser."""

    name = "salesforce"
    kept_in_process = True  # the embedded org is served by this pytest process

    def __init__(self, server: "OrgServer", browser: "BrowserEnvironment | None", *, worker_id: str = "master") -> None:
        from simple_salesforce import Salesforce

        self.server = server
        self.browser = browser
        self.worker_id = worker_id
        creds = server.start()
        self.credentials = creds
        self.token = server.access_token()
        register_secrets([self.token, creds.password, creds.client_secret])
        self.org = Salesforce(instance_url=creds.instance_url, session_id=self.token,
                              session=creds.requests_session(), version=API_VERSION)
        self.store = server.org
        self._closed = False

    # -- the browser is logged in by frontdoor with a fresh token per context ----------------------------
    def frontdoor_url(self) -> str:
        token = self.server.access_token()
        register_secrets([token])
        return f"{self.credentials.instance_url}/secur/frontdoor.jsp?sid={token}"

    def _require_browser(self) -> "BrowserEnvironment":
        if self.browser is None:
            raise ProvisioningError("this salesforce environment was made without a browser")
        return self.browser

    # -- Environment -------------------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        return Snapshot(self.name, _OrgSnapshot(self.store.snapshot(),
                                                self.browser.snapshot() if self.browser else None))

    def restore(self, snapshot: Snapshot, scope: Sequence[str] | None = None) -> None:
        data: _OrgSnapshot = snapshot.data
        self.store.restore(data.org, scope=list(scope) if scope else None)
        if self.browser is not None and data.browser is not None:
            self.browser.restore(data.browser)

    def residue(self, snapshot: Snapshot) -> list[str]:
        data: _OrgSnapshot = snapshot.data
        left = [f"org: {line}" for line in self.store.residue(data.org)]
        if self.browser is not None and data.browser is not None:
            left += [f"browser: {line}" for line in self.browser.residue(data.browser)]
        return left

    def begin_task(self, task: "Task") -> None:
        if self.browser is not None:
            self.browser.begin_task(task)

    def end_task(self, task: "Task", *, failed: bool) -> dict[str, Any]:
        return self.browser.end_task(task, failed=failed) if self.browser is not None else {}

    def observe(self, kinds: frozenset[str]) -> "Observation":
        return self._require_browser().observe(kinds)

    def act(self, action: "Action") -> "ActionResult":
        return self._require_browser().act(action)

    @property
    def options(self) -> Any:
        """The browser's options (trace and video settings), for reporting."""
        return self.browser.options if self.browser is not None else None

    @property
    def last_artifacts(self) -> dict[str, Any]:
        """The browser's artifacts of the last task (trace, video)."""
        return self.browser.last_artifacts if self.browser is not None else {}

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "org": "local", "instance_url": self.credentials.instance_url,
                               "worker": self.worker_id}
        if self.browser is not None:
            out["browser"] = self.browser.describe()
        return out

    def keep_env_message(self) -> str:
        lines = [f"pytest-cua --keep-env: org of worker {self.worker_id} at {self.credentials.instance_url}",
                 f"  credentials (mode 0600): {self.server.data_dir / 'credentials.json'}",
                 f"  CA certificate: {self.credentials.ca_path}"]
        if self.browser is not None:
            lines.append(self.browser.keep_env_message())
        return "\n".join(lines)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            if self.browser is not None:
                self.browser.close()
        finally:
            self.server.stop()
            shutil.rmtree(self.server.data_dir, ignore_errors=True)  # TLS keys and credentials go too


ORG_DIR_PREFIX = "pytest-cua-org-"
OWNER_FILE = "owner.pid"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_stale_org_dirs(tmp: str | Path | None = None) -> list[Path]:
    """Remove the data folders of orgs whose process is gone (a crashed or killed worker); return them."""
    removed = []
    for path in sorted(Path(tmp or tempfile.gettempdir()).glob(f"{ORG_DIR_PREFIX}*")):
        owner = path / OWNER_FILE
        try:
            pid = int(owner.read_text().strip())
        except (OSError, ValueError):
            continue  # not ours, or being created right now
        if not _alive(pid):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


class SalesforceProvider(EnvironmentProvider):
    """The ``salesforce`` provider: an embedded org and a browser logged in to it, per xdist worker."""

    name = "salesforce"

    def add_options(self, group: Any) -> None:
        from pytest_cua.envs.browser.options import add_browser_options

        add_browser_options(group)  # the org's browser (added once when the browser provider adds them too)
        group.addoption("--cua-org", dest="cua_org", default="local", metavar="local",
                        help="the org CRM suites run against: 'local' (the embedded org, default)")

    def create(self, ctx: EnvContext) -> SalesforceEnvironment:
        from pytest_cua.envs.browser import BrowserEnvironment, BrowserOptions
        from pytest_cua.localorg.server import OrgServer

        which = ctx.option("cua_org", "local")
        if which != "local":
            raise ProvisioningError(f"--cua-org {which!r}: only the embedded org ('local') is supported by this "
                                    f"version; a real org's record-level rollback is not implemented yet")
        sweep_stale_org_dirs()
        data_dir = Path(tempfile.mkdtemp(prefix=f"{ORG_DIR_PREFIX}{ctx.run_id}-{ctx.worker_id}-"))
        (data_dir / OWNER_FILE).write_text(str(os.getpid()))
        server = OrgServer(data_dir)
        env: SalesforceEnvironment | None = None
        try:
            options = BrowserOptions.from_context(ctx)
            env = SalesforceEnvironment(server, None, worker_id=ctx.worker_id)
            browser = BrowserEnvironment(options, login_url=env.frontdoor_url, home_url=env.credentials.instance_url,
                                         ignore_https_errors=True, artifacts_dir=ctx.artifacts_dir,
                                         worker_id=ctx.worker_id, run_id=ctx.run_id)
            env.browser = browser.start()
            return env
        except BaseException:
            if env is not None:
                env.close()
            else:
                server.stop()
            raise


PROVIDER = SalesforceProvider()
create = PROVIDER.create
