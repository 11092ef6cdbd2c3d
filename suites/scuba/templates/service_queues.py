"""Service persona, queues: create a queue with an email, a supported object and members.

SCUBA's ``create_queue_with_members``, scored as SCUBA scores it (milestone_evaluator_service.py): ground truth
``queue_name`` (the queue's API name), ``group_type`` (the supported object's API name), ``email_address`` (an
empty one holds whatever the queue's email) and ``role_members`` (names of roles, users or public groups: SCUBA
matches member names of any kind). The queue is the first Group of type Queue with that DeveloperName, its
object the first QueueSobject of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from pytest_cua import EvalContext, milestone
from pytest_cua.actions import Action, Check, Click, Done, Fill, SelectOption

from . import shared as s
from .common import first, soql_str

if TYPE_CHECKING:
    from pytest_cua import Environment, Task


def queue_label(api_name: str) -> str:
    """The label a person types for a queue API name: "Cold_Chain_Support" -> "Cold Chain Support"."""
    return " ".join(api_name.replace("_", " ").split())


def member_id(sf: Any, name: str) -> str:
    """The GroupMember.UserOrGroupId for a member name: a role's group, else a user, else a public group."""
    gid = s.role_group_id(sf, name)
    if gid is None:
        user = s.user_by_name(sf, name)
        gid = user["Id"] if user else None
    if gid is None:
        group = first(sf, f"SELECT Id FROM Group WHERE Type = 'Regular' AND Name = {soql_str(name)}")
        gid = group["Id"] if group else None
    if gid is None:
        raise LookupError(f"no role, user or public group named {name!r} in the org")
    return gid


def member_option(sf: Any, name: str, kinds: Sequence[str] = ("Roles", "Users", "Public Groups")) -> tuple[str, str]:
    """(the "Search" kind, the "Available Members" option) of a member name, trying ``kinds`` in order: a role
    ("Role: CEO"), a user ("User: Foo Bar") or a public group ("Group: Support")."""
    for kind in kinds:
        if kind == "Roles":
            role = s.role_by_name(sf, name)
            if role is not None:
                return kind, f"Role: {role['Name']}"
        elif kind == "Users":
            user = s.user_by_name(sf, name, "Id, Name")
            if user is not None:
                return kind, f"User: {user['Name']}"
        else:
            group = first(sf, f"SELECT Name FROM Group WHERE Type = 'Regular' AND Name = {soql_str(name)}")
            if group is not None:
                return kind, f"Group: {group['Name']}"
    raise LookupError(f"no {' or '.join(kinds)} member named {name!r} in the org")


def add_member_steps(sf: Any, names: Sequence[str], kinds: Sequence[str], add_index: int) -> list[Action]:
    """The members moved to "Selected Members": per member the "Search" kind, the option, then the members'
    "Add" (the ``add_index``-th "Add" button of the page)."""
    steps: list[Action] = []
    for name in names:
        kind, option = member_option(sf, name, kinds)
        steps += [SelectOption('role=combobox[name="Search"]', kind), SelectOption("label=Available Members", option),
                  Click(f'role=button[name="Add"] >> nth={add_index}')]
    return steps


class CreateQueue(s.ScubaTemplate):
    """A queue with its email, one supported object and members."""

    name = "create_queue_with_members"
    ground_truth_keys = ("email_address", "group_type", "queue_name", "role_members")
    objects = ("Group", "GroupMember", "QueueSobject")
    milestones = {"queue exists": 0.3, "supported object": 0.2, "queue email": 0.25, "members": 0.25}

    @staticmethod
    def _queue(sf: Any, name: str) -> dict[str, Any] | None:
        found = s.checked_rows(sf, "SELECT Id, DoesSendEmailToMembers, Email FROM Group "
                                   f"WHERE Type = 'Queue' AND DeveloperName = {soql_str(name)}")
        return found[0] if found else None

    def check(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        name = str(truth.get("queue_name", ""))
        queue = self._queue(sf, name)
        missing = f"no queue with API name {name!r}"
        with milestone("queue exists"):
            assert queue is not None, missing
        with milestone("supported object"):
            assert queue is not None, missing
            wanted = str(truth.get("group_type", ""))
            have = [r["SobjectType"] for r in s.checked_rows(
                sf, f"SELECT QueueId, SobjectType FROM QueueSobject WHERE QueueId = {soql_str(queue['Id'])}")]
            # an own task may name the object by its label ("Change Request"); SCUBA's name it by API name
            names = (wanted,) if s.exact() else (wanted, s.object_api_name(sf, wanted))
            assert have and have[0] in names, \
                f"the queue's object is {have[0] if have else None!r}, expected {wanted!r}"
        with milestone("queue email"):
            assert queue is not None, missing
            want = truth.get("email_address")
            assert want == "" or queue.get("Email") == want, f"queue email is {queue.get('Email')!r}, expected {want!r}"
        with milestone("members"):
            assert queue is not None, missing
            users, roles, groups = s.group_members(sf, queue["Id"])
            have_names = users | roles | groups
            lacking = [m for m in s.as_list(truth.get("role_members")) if m not in have_names]
            assert not lacking, f"not members of the queue: {lacking} (members: {sorted(have_names)})"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        name = str(truth["queue_name"])
        fields = {"Email": truth.get("email_address") or None, "DoesSendEmailToMembers": True}
        existing = self._queue(sf, name)
        if existing is not None:  # the org's seed may hold the queue already: complete it, never duplicate it
            qid = existing["Id"]
            sf.Group.update(qid, fields)
        else:
            qid = sf.Group.create({"Name": queue_label(name), "DeveloperName": name, "Type": "Queue", **fields})["id"]
        sobject = s.object_api_name(sf, str(truth["group_type"])) or str(truth["group_type"])
        sf.QueueSobject.create({"QueueId": qid, "SobjectType": sobject})
        for member in s.as_list(truth.get("role_members")):
            sf.GroupMember.create({"GroupId": qid, "UserOrGroupId": member_id(sf, member)})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        name = str(truth["queue_name"])
        sobject = s.object_api_name(sf, str(truth["group_type"])) or str(truth["group_type"])
        described = s.describe(env, sobject)
        label = str((described or {}).get("label") or sobject)
        steps: list[Action] = [*s.setup_link(env, "Queues")]
        existing = first(sf, f"SELECT Id, Name FROM Group WHERE Type = 'Queue' AND DeveloperName = {soql_str(name)}")
        have_objects: set[str] = set()
        have_members: set[str] = set()
        if existing is not None:  # the release's seed holds the queue already: complete it (Edit), as the oracle
            steps += [s.click_link(str(existing["Name"])), s.click_button("Edit")]
            qid = str(existing["Id"])
            have_objects = {str(r["SobjectType"]) for r in s.rows(sf, "SELECT SobjectType FROM QueueSobject "
                                                                      f"WHERE QueueId = {soql_str(qid)}")}
            have_members = {str(r["UserOrGroupId"]) for r in s.rows(sf, "SELECT UserOrGroupId FROM GroupMember "
                                                                       f"WHERE GroupId = {soql_str(qid)}")}
        else:
            steps += [s.click_button("New"), Fill("label=Label", queue_label(name)), Fill("label=Queue Name", name)]
        if truth.get("email_address"):
            steps.append(Fill("label=Queue Email", str(truth["email_address"])))
        steps.append(Check("label=Send Email to Members"))
        if sobject not in have_objects:  # Available Objects -> Add (the page's first "Add") -> Selected Objects
            steps += [SelectOption("label=Available Objects", label), Click('role=button[name="Add"] >> nth=0')]
        members = [m for m in s.as_list(truth.get("role_members")) if member_id(sf, str(m)) not in have_members]
        steps += add_member_steps(sf, [str(m) for m in members], ("Roles", "Users", "Public Groups"), 1)
        steps += [s.click_button("Save"), Done()]
        return steps


TEMPLATES = [CreateQueue()]
