"""``ApiOrg``: an org of kind ``salesforce`` leased by this worker, reached and rolled back over its standard
APIs only (REST, SOAP partner, Metadata API): the path of a real Salesforce org.

- Login by the entry's ``auth`` (``pytest_cua.orgs.auth``); an ended session is renewed on the next call.
- Provisioning, once per org: the first lease takes the org's baseline (records of the watched objects,
  metadata of the tracked types) and keeps it in the lease folder (``<org>-<hash>.baseline.json``, mode
  0600). A later lease finds it: it compares the org's summaries with the
  kept baseline, and resets the org to it when the earlier holder died, gave it back dirty, or the org moved.
- Per task: records of the scope's objects and metadata of the scope's types are put back
  (``pytest_cua.orgs.realorg.records``, ``.metadata``), then the residue check runs over the API: the scope record by
  record, every other watched object by its summary, the tracked metadata by listing and content.
- The daily API requests each task used (the limits resource before and after) go into the task's record.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from pytest_cua.envs.base import ProvisioningError
from pytest_cua.orgs.auth import OrgLoginError
from pytest_cua.orgs.realorg import metadata as md
from pytest_cua.orgs.realorg import records as rec
from pytest_cua.orgs.realorg.client import OrgApiError, OrgClient, OrgLimitExceeded
from pytest_cua.redaction import register_secrets

if TYPE_CHECKING:
    from pytest_cua.orgs.auth import OrgLogin
    from pytest_cua.orgs.pool import OrgLease

log = logging.getLogger("pytest_cua.orgs.realorg")
BASELINE_VERSION = 1


class ApiBaseline:
    """The org's state a rollback returns to: records and metadata."""

    def __init__(self, records: rec.RecordBaseline, metadata: md.MetadataBaseline, taken_at: float) -> None:
        self.records = records
        self.metadata = metadata
        self.taken_at = taken_at

    def to_json(self) -> dict[str, Any]:
        return {"version": BASELINE_VERSION, "taken_at": self.taken_at, "records": self.records.to_json(),
                "metadata": self.metadata.to_json()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "ApiBaseline":
        if data.get("version") != BASELINE_VERSION:
            raise ValueError(f"baseline version {data.get('version')!r} is not {BASELINE_VERSION}")
        return cls(rec.RecordBaseline.from_json(data["records"]), md.MetadataBaseline.from_json(data["metadata"]),
                   float(data["taken_at"]))


def baseline_path(lease: "OrgLease") -> Path:
    return lease.path.with_suffix(".baseline.json")


def save_baseline(path: Path, baseline: ApiBaseline) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(baseline.to_json(), fh)
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_baseline(path: Path) -> ApiBaseline | None:
    try:
        return ApiBaseline.from_json(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("baseline %s cannot be used (%s): a new one is taken", path, exc)
        return None


class ApiOrg:
    """The handle ``SalesforceEnvironment`` drives for an org reached over its standard APIs only."""

    kept_in_process = False

    def __init__(self, lease: "OrgLease", *, tracked_types: Sequence[str] = md.TRACKED) -> None:
        self.lease = lease
        self.entry = lease.entry
        self.name = self.entry.name
        login = self.entry.login
        if login is None:
            raise ProvisioningError(f"org {self.name!r}: an entry of kind {self.entry.kind!r} has no login settings")
        self.login: "OrgLogin" = login
        register_secrets(self.login.secrets())
        self.tracked_types = tuple(tracked_types)
        self.client: OrgClient | None = None
        self.baseline: ApiBaseline | None = None
        self.reset_note: str | None = None
        self.provisioned: str = ""  # "taken" (first lease of the org) or "found" (a kept baseline)
        self.provisioning_note: str = ""  # what the suite's provisioning found and created (set by the suite)
        self._clean = not lease.stale
        self._requests_before: int | None = None

    # -- the org -----------------------------------------------------------------------------------------
    def _client(self) -> OrgClient:
        if self.client is None:
            raise ProvisioningError(f"org {self.name!r}: not started")
        return self.client

    def start(self) -> "OrgLogin":
        try:
            self.client = OrgClient(self.login)
        except OrgLoginError as exc:
            raise ProvisioningError(str(exc)) from None
        try:
            self._provision()
        except (OrgApiError, OrgLimitExceeded, OSError, ValueError) as exc:
            self.client.close()
            raise ProvisioningError(f"org {self.name!r} ({self.login.source}): provisioning failed: {exc}") from None
        return self.login

    def access_token(self) -> str:
        """A live token (the browser's frontdoor login): the session's, renewed once it has ended."""
        client = self._client()
        try:
            client.limits()  # any call: an ended session is renewed here
        except (OrgApiError, OrgLimitExceeded):
            pass
        return client.token

    def _provision(self) -> None:
        path = baseline_path(self.lease)
        kept = load_baseline(path)
        if kept is None:  # the first lease of this org: the baseline is taken after the suite's provisioning
            self.provisioned = "taken"
            self._clean = True
            return
        self.baseline = kept
        self.provisioned = "found"
        if self.lease.stale or self._moved(kept):
            reason = self.lease.stale_reason() if self.lease.stale else "the org changed since its baseline was kept"
            self.full_reset(reason)

    def full_reset(self, reason: str) -> None:
        """Every watched object and tracked metadata type back to the kept baseline, proved by the residue
        check; a ``ProvisioningError`` naming what is left otherwise (the org stays out of the pool)."""
        assert self.baseline is not None
        self._clean = False
        self.restore(self.baseline, None)
        left = self.residue(self.baseline)
        if left:
            raise ProvisioningError(f"org {self.name!r}: reset to its baseline ({reason}) left {len(left)} "
                                    f"difference(s): " + "; ".join(left[:10]))
        self.reset_note = f"reset to its baseline: {reason}"
        log.warning("org %r: %s", self.name, self.reset_note)
        self._clean = True

    # -- the rollback ------------------------------------------------------------------------------------
    def snapshot(self) -> ApiBaseline:
        """The state every task's rollback returns to: the kept baseline, or a new one when the org moved
        since the lease began (the suite's provisioning installed prerequisites: taken once, kept after)."""
        client = self._client()
        base = self.baseline
        if base is None or self._moved(base):
            started = time.perf_counter()
            objects = rec.watched_objects(client)
            base = self.baseline = ApiBaseline(rec.take_baseline(client, objects),
                                               md.take_baseline(client, self.tracked_types), time.time())
            save_baseline(baseline_path(self.lease), base)
            self.provisioned = self.provisioned or "taken"
            log.info("org %r: baseline taken after provisioning in %.1f s", self.name, time.perf_counter() - started)
        return base

    def _moved(self, base: ApiBaseline) -> bool:
        client = self._client()
        if rec.read_summary(client, sorted(base.records.objects)) != base.records.summary:
            return True
        return md.list_components(client, base.metadata.shapes) != base.metadata.listing

    def restore(self, snap: ApiBaseline, scope: Sequence[str] | None) -> None:
        self._clean = False  # until a residue check says otherwise
        client = self._client()
        names = None if scope is None else list(scope)
        self._last_scope = names
        done = rec.restore(client, snap.records, snap.records.objects if names is None else names)
        self._touched = sorted(done.touched)
        errors = done.errors + md.restore(client, snap.metadata)  # metadata goes back whatever the scope
        if errors:
            log.warning("org %r: rollback calls that failed: %s", self.name, "; ".join(errors[:10]))

    def residue(self, snap: ApiBaseline) -> list[str]:
        client = self._client()
        scope = self._last_scope
        compared = None if scope is None else [*scope, *self._touched]  # what the rollback wrote is compared too
        left = rec.residue(client, snap.records, compared) + md.residue(client, snap.metadata)
        self._clean = not left
        if not left:
            save_baseline(baseline_path(self.lease), snap)  # new stamps of restored records
        return left

    _last_scope: list[str] | None = None
    _touched: list[str] = []

    def begin_task(self) -> None:
        try:
            self._requests_before = self._remaining()
        except (OrgApiError, OrgLimitExceeded):
            self._requests_before = None

    def _remaining(self) -> int:
        return int((self._client().limits().get("DailyApiRequests") or {}).get("Remaining") or 0)

    def task_usage(self) -> dict[str, Any]:
        if self._requests_before is None:
            return {}
        try:
            used = self._requests_before - self._remaining()
        except (OrgApiError, OrgLimitExceeded, TypeError, ValueError):
            return {}
        self._requests_before = None
        return {"api_requests": used}

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"org": self.name, "org_kind": self.entry.kind, "org_auth": self.login.auth}
        if self.provisioned:
            out["org_baseline"] = self.provisioned
        if self.provisioning_note:
            out["org_provisioning"] = self.provisioning_note
        if self.reset_note:
            out["org_reset"] = self.reset_note
        return out

    def keep_lines(self) -> list[str]:
        return [f"  org {self.name!r} of {self.login.source} (reached over its APIs; its lease is given back at "
                f"exit)"]

    def close(self, clean: bool = True) -> None:
        try:
            if self.client is not None:
                self.client.close()
        finally:
            self.lease.release(clean=clean and self._clean)

