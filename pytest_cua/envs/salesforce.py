"""The ``salesforce`` environment: an org plus a browser logged in to it.

Per xdist worker: an embedded org (``pytest_cua.orgs.localorg.OrgServer`` on 127.0.0.1, its own data folder named
after the worker) and one Chromium. Evaluators and oracle solvers read and write the org through ``env.org``,
a simple-salesforce client over real HTTPS; the agent works through the browser, which logs in by frontdoor
with a session token (no password is typed) once, and starts every later context from that session's cookie
(a new frontdoor login when the session expired or was revoked, e.g. a task logged out). Rollback restores the org's records (within the template's
scope) and opens a fresh browser context; ``residue`` checks the whole org and the browser.

Options: ``--cua-org local`` (default; the embedded org in every worker), or orgs served elsewhere from an orgs
file (``--cua-orgs FILE``, ini ``cua_orgs``; see ``pytest_cua.orgs.pool``): ``--cua-org pool`` (the default when
a file is given) leases one org of the file per worker, ``--cua-org NAME`` that one org (one worker). A served
org (kind ``localorg``) is rolled back through its control resource over HTTPS (``pytest_cua.orgs.localorg.control``):
the worker never touches its store, and such an environment has no ``store``. An org of kind ``salesforce`` (a
real org, an ``sf:ALIAS`` or ``--cua-org env``) is reached and rolled back over the standard APIs only
(``pytest_cua.orgs.realorg.ApiOrg``).
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence
from urllib.parse import urlsplit

from pytest_cua.envs.base import EnvContext, Environment, EnvironmentProvider, ProvisioningError, Snapshot
from pytest_cua.orgs.pool import pid_alive
from pytest_cua.redaction import register_secrets

if TYPE_CHECKING:
    from pytest_cua.actions import Action, ActionResult
    from pytest_cua.envs.browser import BrowserEnvironment
    from pytest_cua.orgs.localorg.server import OrgCredentials, OrgServer
    from pytest_cua.observations import Observation
    from pytest_cua.orgs.pool import OrgEntry, OrgLease
    from pytest_cua.orgs.realorg.handle import ApiOrg
    from pytest_cua.tasks.task import Task

API_VERSION = "59.0"
log = logging.getLogger("pytest_cua.envs.salesforce")


@dataclass
class _OrgSnapshot:
    org: Any
    browser: Snapshot | None


class EmbeddedOrg:
    """The org served by this process (``OrgServer`` in a thread): rolled back in its store directly."""

    kept_in_process = True
    name = "local"

    def __init__(self, server: "OrgServer") -> None:
        self.server = server
        self.store = server.org

    def start(self) -> "OrgCredentials":
        return self.server.start()

    def access_token(self) -> str:
        return self.server.access_token()

    def snapshot(self) -> Any:
        return self.store.snapshot()

    def restore(self, snap: Any, scope: Sequence[str] | None) -> None:
        self.store.restore(snap, scope=list(scope) if scope else None)

    def residue(self, snap: Any) -> list[str]:
        return self.store.residue(snap)

    def describe(self) -> dict[str, Any]:
        return {"org": "local"}

    def keep_lines(self) -> list[str]:
        return [f"  credentials (mode 0600): {self.server.data_dir / 'credentials.json'}"]

    def close(self, clean: bool = True) -> None:
        self.server.stop()
        shutil.rmtree(self.server.data_dir, ignore_errors=True)  # TLS keys and credentials go too


class ServedOrg:
    """An org of the orgs file, served by another process and leased by this one: logged in over OAuth and
    rolled back through its control resource over HTTPS (``pytest_cua.orgs.localorg.control``). A stale lease (its
    earlier holder died, or gave it back dirty) is reset to the org's baseline first."""

    kept_in_process = False

    def __init__(self, lease: "OrgLease") -> None:
        from pytest_cua.orgs.localorg.control import ControlClient

        self.lease = lease
        self.entry: "OrgEntry" = lease.entry
        self.name = self.entry.name
        register_secrets(self.entry.secrets())
        self.credentials = self.entry.credentials()
        self.session = self.credentials.requests_session()
        self.control = ControlClient(self.credentials.instance_url, self.session, self.access_token,
                                     version=API_VERSION, name=f"{self.name!r} ({self.entry.source})")
        self.reset_note: str | None = None
        self._snapshots: list[str] = []
        self._clean = not lease.stale  # a stale lease stays stale until the reset has worked

    def access_token(self) -> str:
        try:
            token = self.credentials.login("client_credentials", session=self.session)
        except Exception as exc:
            raise ProvisioningError(f"org {self.name!r} ({self.entry.source}): OAuth login at "
                                    f"{self.credentials.instance_url} failed: {type(exc).__name__}: {exc}") from None
        register_secrets([token])
        return token

    def start(self) -> "OrgCredentials":
        from pytest_cua.orgs.localorg.control import ControlError

        try:
            self.control.info()
            if self.lease.stale:
                reason = self.lease.stale_reason()
                self.control.reset()
                self._clean = True
                self.reset_note = f"reset to its baseline: {reason}"
                log.warning("org %r of %s: %s", self.name, self.entry.source, self.reset_note)
        except ControlError as exc:
            raise ProvisioningError(str(exc)) from None
        return self.credentials

    def snapshot(self) -> Any:
        sid = self.control.snapshot()
        self._snapshots.append(sid)
        return sid

    def restore(self, snap: Any, scope: Sequence[str] | None) -> None:
        self._clean = False  # until a residue check says otherwise
        self.control.restore(str(snap), scope)

    def residue(self, snap: Any) -> list[str]:
        left = self.control.residue(str(snap))
        self._clean = not left
        return left

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"org": self.name, "org_kind": self.entry.kind}
        if self.reset_note:
            out["org_reset"] = self.reset_note
        return out

    def keep_lines(self) -> list[str]:
        return [f"  org {self.name!r} of {self.entry.source} (served elsewhere; its lease is given back at exit)"]

    def close(self, clean: bool = True) -> None:
        try:
            for sid in self._snapshots:
                try:
                    self.control.drop(sid)
                except Exception:  # noqa: BLE001 - the org may be gone; the lease goes back regardless
                    pass
        finally:
            self.session.close()
            self.lease.release(clean=clean and self._clean)


class SalesforceEnvironment(Environment):
    """An org and an optional browser. ``org`` is the API client (simple-salesforce over HTTPS); an embedded
    org served by this process also has ``server`` and ``store`` (the store itself); an org served elsewhere
    (``ServedOrg``) has neither."""

    name = "salesforce"
    kept_in_process = True  # the embedded org is served by this pytest process

    def __init__(self, server: "OrgServer | EmbeddedOrg | ServedOrg | ApiOrg", browser: "BrowserEnvironment | None", *,
                 worker_id: str = "master") -> None:
        from simple_salesforce import Salesforce

        from pytest_cua.orgs.localorg.server import OrgServer

        handle = EmbeddedOrg(server) if isinstance(server, OrgServer) else server
        self.handle = handle
        if isinstance(handle, EmbeddedOrg):
            self.server = handle.server
            self.store = handle.store
        self.kept_in_process = handle.kept_in_process
        self.browser = browser
        self.worker_id = worker_id
        creds = handle.start()
        self.credentials = creds
        self.token = handle.access_token()
        register_secrets([self.token, creds.password, creds.client_secret])
        client = getattr(handle, "client", None)
        if client is not None:  # an org over its APIs: the client that renews its session
            self.org = client.sf
        else:
            self.org = Salesforce(instance_url=creds.instance_url, session_id=self.token,
                                  session=creds.requests_session(), version=API_VERSION)
        self._closed = False

    # -- the browser logs in by frontdoor with a fresh token (again when its kept session stops working) --
    def frontdoor_url(self) -> str:
        token = self.handle.access_token()
        register_secrets([token])
        return f"{self.credentials.instance_url}/secur/frontdoor.jsp?sid={token}"

    def is_login_page(self, url: str) -> bool:
        """Whether the browser landed on the org's login page (or left the org): the session is gone."""
        parts, org = urlsplit(url), urlsplit(self.credentials.instance_url)
        return parts.netloc != org.netloc or parts.path.rstrip("/") in ("/login", "/secur/frontdoor.jsp")

    def _require_browser(self) -> "BrowserEnvironment":
        if self.browser is None:
            raise ProvisioningError("this salesforce environment was made without a browser")
        return self.browser

    # -- Environment -------------------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        return Snapshot(self.name, _OrgSnapshot(self.handle.snapshot(),
                                                self.browser.snapshot() if self.browser else None))

    def restore(self, snapshot: Snapshot, scope: Sequence[str] | None = None) -> None:
        data: _OrgSnapshot = snapshot.data
        self.handle.restore(data.org, scope)
        if self.browser is not None and data.browser is not None:
            self.browser.restore(data.browser)

    def residue(self, snapshot: Snapshot) -> list[str]:
        data: _OrgSnapshot = snapshot.data
        left = [f"org: {line}" for line in self.handle.residue(data.org)]
        if self.browser is not None and data.browser is not None:
            left += [f"browser: {line}" for line in self.browser.residue(data.browser)]
        return left

    def begin_task(self, task: "Task") -> None:
        begin = getattr(self.handle, "begin_task", None)
        if begin is not None:
            begin()
        if self.browser is not None:
            self.browser.begin_task(task)

    def task_usage(self) -> dict[str, Any]:
        """What the last task used of the org (``api_requests`` for an org over its APIs), after its rollback."""
        usage = getattr(self.handle, "task_usage", None)
        return usage() if usage is not None else {}

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
        out: dict[str, Any] = {"name": self.name, **self.handle.describe(),
                               "instance_url": self.credentials.instance_url, "worker": self.worker_id}
        if self.browser is not None:
            out["browser"] = self.browser.describe()
        return out

    def keep_env_message(self) -> str:
        lines = [f"pytest-cua --keep-env: org of worker {self.worker_id} at {self.credentials.instance_url}",
                 *self.handle.keep_lines(), f"  CA certificate: {self.credentials.ca_path}"]
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
            self.handle.close()


ORG_DIR_PREFIX = "pytest-cua-org-"
OWNER_FILE = "owner.pid"




def sweep_stale_org_dirs(tmp: str | Path | None = None) -> list[Path]:
    """Remove the data folders of orgs whose process is gone (a crashed or killed worker); return them."""
    removed = []
    for path in sorted(Path(tmp or tempfile.gettempdir()).glob(f"{ORG_DIR_PREFIX}*")):
        owner = path / OWNER_FILE
        try:
            pid = int(owner.read_text().strip())
        except (OSError, ValueError):
            continue  # not ours, or being created right now
        if not pid_alive(pid):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


#: how a booted page of the embedded org's Lightning shell shows a URL afresh in place (its router's navigate,
#: without a history entry; a promise of true once the page is shown, of false, the page left as it was, when the
#: answer was not one of the shell's pages, e.g. the login page; focus as on a page the browser loads); the environment's spare boots the landing page while a task runs and the rollback hands it over
#: with this (``BrowserEnvironment(landing_refresh=...)``). Not on an org reached over Salesforce's APIs, whose
#: pages are Salesforce's own.
LIGHTNING_REFRESH = ("url => typeof window.oneNavigate === 'function' "
                     "? window.oneNavigate(url, {push: false, focus: false, fallback: false}) : false")


class SalesforceProvider(EnvironmentProvider):
    """The ``salesforce`` provider: an embedded org and a browser logged in to it, per xdist worker."""

    name = "salesforce"

    def add_options(self, group: Any) -> None:
        from pytest_cua.envs.browser.options import add_browser_options

        add_browser_options(group)  # the org's browser (added once when the browser provider adds them too)
        group.addoption("--cua-org", dest="cua_org", default=None, metavar="local|pool|NAME",
                        help="the org CRM suites run against: 'local' (an embedded org in every worker; the "
                             "default without --cua-orgs), 'pool' (each worker leases one org of the --cua-orgs "
                             "file; the default with it) or NAME (that org of the file, one worker)")
        group.addoption("--cua-orgs", dest="cua_orgs", default=None, metavar="FILE",
                        help="orgs file (JSON) of orgs served elsewhere, e.g. by `pytest-cua org serve "
                             "--write-entry FILE` (ini: cua_orgs)")
        parser = getattr(group, "parser", None)
        if parser is not None:
            parser.addini("cua_orgs", "default orgs file for --cua-orgs (relative to the ini file)", default="")

    def configure(self, config: Any) -> None:
        """Validate ``--cua-org`` / ``--cua-orgs`` at configure time; on the xdist controller (or without xdist)
        also that the file has an org for every worker: usage errors before anything runs."""
        from pytest_cua.envs.browser.options import check_browser_config
        from pytest_cua.orgs.pool import OrgsFileError, check_enough, resolve_choice, worker_count

        check_browser_config(config)  # the org's browser
        try:
            choice = resolve_choice(config)
            if not hasattr(config, "workerinput"):
                check_enough(choice, worker_count(config))
        except (OrgsFileError, ValueError) as exc:
            import pytest

            raise pytest.UsageError(str(exc)) from None

    def _org(self, ctx: EnvContext) -> "OrgServer | ServedOrg | ApiOrg":
        """This worker's org: a new embedded one, or a lease of one served elsewhere."""
        from pytest_cua.orgs.localorg.server import OrgServer
        from pytest_cua.orgs.pool import OrgsFileError, lease_one, resolve_choice

        try:
            choice = resolve_choice(ctx.config) if ctx.config is not None else None
        except (OrgsFileError, ValueError) as exc:
            raise ProvisioningError(str(exc)) from None
        if choice is not None and choice.remote:
            try:
                lease = lease_one(choice.candidates(), worker_id=ctx.worker_id, run_id=ctx.run_id,
                                  source=f"--cua-orgs {choice.orgs_file}" if choice.orgs_file else
                                f"--cua-org {choice.which}")
            except LookupError as exc:
                raise ProvisioningError(str(exc)) from None
            if lease.entry.kind == "salesforce":
                from pytest_cua.orgs.realorg.handle import ApiOrg

                return ApiOrg(lease)
            return ServedOrg(lease)
        sweep_stale_org_dirs()
        data_dir = Path(tempfile.mkdtemp(prefix=f"{ORG_DIR_PREFIX}{ctx.run_id}-{ctx.worker_id}-"))
        (data_dir / OWNER_FILE).write_text(str(os.getpid()))
        return OrgServer(data_dir)

    def create(self, ctx: EnvContext) -> SalesforceEnvironment:
        from pytest_cua.envs.browser import BrowserEnvironment, BrowserOptions
        from pytest_cua.orgs.localorg.server import OrgServer

        server = self._org(ctx)
        env: SalesforceEnvironment | None = None
        try:
            options = BrowserOptions.from_context(ctx)
            env = SalesforceEnvironment(server, None, worker_id=ctx.worker_id)
            ours = isinstance(server, (OrgServer, ServedOrg))  # the embedded org's pages, here or served elsewhere
            browser = BrowserEnvironment(options, login_url=env.frontdoor_url, home_url=env.credentials.instance_url,
                                         login_page=env.is_login_page, ignore_https_errors=True,
                                         artifacts_dir=ctx.artifacts_dir, worker_id=ctx.worker_id,
                                         run_id=ctx.run_id, landing_refresh=LIGHTNING_REFRESH if ours else None)
            env.browser = browser.start()
            return env
        except BaseException:
            if env is not None:
                env.close()
            else:
                (server if not isinstance(server, OrgServer) else EmbeddedOrg(server)).close(clean=False)
            raise


PROVIDER = SalesforceProvider()
create = PROVIDER.create
