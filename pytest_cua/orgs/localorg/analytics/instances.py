"""The Analytics API's Execute Async: report instances (``analytics/reports/<id>/instances``).

``POST .../instances`` (optionally with ``reportMetadata`` that changes the run's filters, as Execute Sync's POST,
and ``?includeDetails=true``) runs the report and answers the instance as Salesforce does for a run just asked for
(status ``New``); ``GET .../instances`` lists the report's instances (newest first), ``GET .../instances/<iid>``
answers the instance's results (Execute Sync's answer, whose ``attributes`` are the instance's: ``type``
``ReportInstance``, ``status`` ``Success``, the request and completion dates), ``DELETE`` removes a finished one.

The run is made when it is asked for, so an instance is finished at once: a client that polls for ``Success``
sees it on its first poll. Instances are kept by the server as Salesforce keeps them for a while, not in the org's
data (like a query's ``nextRecordsUrl`` rows): at most ``LIMIT``, the oldest dropped, and a task's rollback does not
touch them (an instance names a report run at a moment, not a record).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Callable

from pytest_cua.orgs.localorg import values
from pytest_cua.orgs.localorg.errors import not_found
from pytest_cua.orgs.localorg.ids import IdFactory

KEY_PREFIX = "0LG"  # ReportInstance
LIMIT = 200


class ReportInstances:
    """The asynchronous runs asked for on one org server (thread-safe)."""

    def __init__(self, limit: int = LIMIT) -> None:
        self.limit = limit
        self._ids = IdFactory()
        self._lock = threading.Lock()
        self._kept: OrderedDict[str, dict[str, Any]] = OrderedDict()

    def run(self, report_id: str, owner_id: str | None, include_details: bool,
            execute: Callable[[], dict[str, Any]], version: str) -> dict[str, Any]:
        """Run ``execute`` (Execute Sync's answer for the report) as a new instance of ``report_id``; returns the
        instance as the POST answers it (status ``New``)."""
        requested = values.now()
        result = execute()
        iid = self._ids.new(KEY_PREFIX)
        kept = {"id": iid, "reportId": report_id, "ownerId": owner_id, "requestDate": requested,
                "completionDate": values.now(), "hasDetailRows": include_details, "result": result}
        with self._lock:
            self._kept[iid] = kept
            while len(self._kept) > self.limit:
                self._kept.popitem(last=False)
        return {**self._summary(kept, version), "completionDate": None, "status": "New"}

    def listed(self, report_id: str, version: str) -> list[dict[str, Any]]:
        """``GET .../instances``: the report's instances, newest first."""
        with self._lock:
            mine = [k for k in self._kept.values() if k["reportId"] == report_id]
        return [self._summary(k, version) for k in reversed(mine)]

    def results(self, report_id: str, instance_id: str, version: str) -> dict[str, Any]:
        """``GET .../instances/<iid>``: the run with the instance's attributes."""
        kept = self._get(report_id, instance_id)
        result = kept["result"]
        attributes = {"completionDate": kept["completionDate"], "id": kept["id"], "ownerId": kept["ownerId"],
                      "reportId": report_id, "reportName": result.get("attributes", {}).get("reportName"),
                      "requestDate": kept["requestDate"], "status": "Success", "type": "ReportInstance"}
        return {**result, "attributes": attributes}

    def delete(self, report_id: str, instance_id: str) -> None:
        kept = self._get(report_id, instance_id)
        with self._lock:
            self._kept.pop(kept["id"], None)

    def _get(self, report_id: str, instance_id: str) -> dict[str, Any]:
        with self._lock:
            kept = self._kept.get(instance_id)
        if kept is None or kept["reportId"] != report_id:
            raise not_found("The requested resource does not exist")
        return kept

    @staticmethod
    def _summary(kept: dict[str, Any], version: str) -> dict[str, Any]:
        return {"completionDate": kept["completionDate"], "hasDetailRows": kept["hasDetailRows"], "id": kept["id"],
                "ownerId": kept["ownerId"], "queryable": False, "requestDate": kept["requestDate"],
                "status": "Success",
                "url": f"/services/data/v{version}/analytics/reports/{kept['reportId']}/instances/{kept['id']}"}
