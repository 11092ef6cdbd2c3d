"""Service persona, queues: create a queue with an email, a supported object and role members.

SCUBA's ``create_queue_with_members``: ground truth ``queue_name`` (the queue's API name), ``group_type`` (the
supported object, by label or API name), ``email_address`` and ``role_members`` (role names). Read the way
SCUBA's scorer reads it: the queue from Group (Type Queue), its objects from QueueSobject, its members from
GroupMember and the role groups behind them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from pytest_cua.actions import Action, Check, Done, Fill
from pytest_cua.scoring import milestone
from pytest_cua.suite import EvalContext, Template

from ._service_admin import (as_list, checked_rows, click_button, click_link, group_members, norm,
                             object_api_name, role_group_id, same_text)
from .common import goto, soql_str

if TYPE_CHECKING:
    from pytest_cua.envs.base import Environment
    from pytest_cua.tasks import Task


def queue_label(api_name: str) -> str:
    """The label a person types for a queue API name: "Cold_Chain_Support" -> "Cold Chain Support"."""
    return " ".join(api_name.replace("_", " ").split())


class CreateQueue(Template):
    """A queue with its email, one supported object and role members."""

    name = "create_queue_with_members"
    objects = ("Group", "GroupMember", "QueueSobject")
    milestones = {"queue exists": 0.25, "queue email": 0.25, "supported object": 0.25, "role members": 0.25}

    def _queue(self, sf: Any, name: str) -> dict[str, Any] | None:
        for q in checked_rows(sf, "SELECT Id, Name, DeveloperName, Email, DoesSendEmailToMembers FROM Group "
                                  "WHERE Type = 'Queue'"):
            if norm(q.get("DeveloperName")) == norm(name) or norm(q.get("Name")) == norm(queue_label(name)):
                return q
        return None

    def evaluate(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        name = str(truth.get("queue_name", ""))
        queue: dict[str, Any] | None = None
        with milestone("queue exists", 0.25):
            queue = self._queue(sf, name)
            assert queue is not None, f"no queue with API name {name!r}"
        missing = f"no queue {name!r}"
        with milestone("queue email", 0.25):
            assert queue is not None, missing
            want = truth.get("email_address")
            assert same_text(queue.get("Email"), want), f"queue email is {queue.get('Email')!r}, expected {want!r}"
        with milestone("supported object", 0.25):
            assert queue is not None, missing
            wanted = str(truth.get("group_type", ""))
            api = object_api_name(sf, wanted) or wanted
            have = [r["SobjectType"] for r in checked_rows(
                sf, f"SELECT SobjectType FROM QueueSobject WHERE QueueId = {soql_str(queue['Id'])}")]
            assert api in have, f"queue supports {sorted(have)}, not {wanted!r}"
        with milestone("role members", 0.25):
            assert queue is not None, missing
            _, roles, _ = group_members(sf, queue["Id"])
            lacking = [r for r in as_list(truth.get("role_members")) if not any(same_text(r, x) for x in roles)]
            assert not lacking, f"roles missing from the queue: {lacking} (members: {sorted(roles)})"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        name = str(truth["queue_name"])
        fields = {"Email": truth.get("email_address"), "DoesSendEmailToMembers": True}
        existing = self._queue(sf, name)
        if existing is not None:  # the org's seed may hold the queue already: complete it, never duplicate it
            qid = existing["Id"]
            sf.Group.update(qid, fields)
        else:
            qid = sf.Group.create({"Name": queue_label(name), "DeveloperName": name, "Type": "Queue", **fields})["id"]
        sobject = object_api_name(sf, str(truth["group_type"])) or str(truth["group_type"])
        sf.QueueSobject.create({"QueueId": qid, "SobjectType": sobject})
        for role in as_list(truth.get("role_members")):
            gid = role_group_id(sf, role)
            assert gid is not None, f"no role {role!r}"
            sf.GroupMember.create({"GroupId": qid, "UserOrGroupId": gid})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        name = str(truth["queue_name"])
        sobject = object_api_name(sf, str(truth["group_type"])) or str(truth["group_type"])
        label = sf.restful(f"sobjects/{sobject}/describe").get("label", sobject)
        steps: list[Action] = [goto(env, "/lightning/setup/SetupOneHome/home"), click_link("Queues"),
                               click_button("New"), Fill("label=Label", queue_label(name)),
                               Fill("label=Queue Name", name), Fill("label=Queue Email", str(truth["email_address"])),
                               Check("label=Send Email to Members"), Check(f"label={label}")]
        for role in as_list(truth.get("role_members")):
            steps.append(Check(f"label={role}"))
        steps += [click_button("Save"), Done()]
        return steps


TEMPLATES = [CreateQueue()]
