"""The question templates of SCUBA's release whose records name no evaluator of their own (``qa_sales_001``,
``qa_sales_002``, ``qa_sales_003``, ``qa_service_001``): scored as every question task is, by SCUBA's rule (the
answer earns its token F1 when it contains the ground truth ``answer``), with demonstrations that open the
records a person reads to answer:

- ``qa_sales_001``: the lead the question names (its name is in the question), then the newest of its Voice Call
  Transcripts in the lead's related list;
- ``qa_sales_002``: the opportunity the question quotes, whose page lists its activities;
- ``qa_sales_003``: the Voice Call Transcript between the two people the question names;
- ``qa_service_001``: the knowledge article whose text answers the question, found by its title in the
  Knowledge list.

- ``qa_admin_039``: the object settings of the permission sets, permission set groups and profiles the question
  names, for the objects it names (Setup > Permission Sets, Permission Set Groups or Profiles > the holder >
  Object Settings > the object). The release's seed does not carry these holders' settings: each task arranges
  them (``suites.scuba.release.org_defaults.ORG_DEFAULT_ACCESS``) and they are rolled back with it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Sequence

from pytest_cua.actions import Action, Answer, Click, Fill, Press

from . import shared as s
from .common import goto, soql_str
from .sales_qa import QuestionTemplate

if TYPE_CHECKING:
    from pytest_cua import Environment, Task


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9$%]+", text.lower()) if len(w) > 2}


def _search_and_open(env: Any, sobject: str, name: str) -> list[Action]:
    """The object's list, its search box with ``name``, then the record's link."""
    return [goto(env, f"/lightning/o/{sobject}/list"), Fill('role=searchbox[name="Search this list..."]', name),
            Press("Enter"), s.click_link(name)]


class LeadCallQuestion(QuestionTemplate):
    """Is the lead qualified, after its newest call (BANT)?"""

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        sf = env.org  # type: ignore[attr-defined]
        leads = [r for r in s.rows(sf, "SELECT Id, Name FROM Lead") if r.get("Name") and r["Name"] in task.instruction]
        if not leads:
            raise LookupError(f"{task.id}: no lead of the org is named in the question")
        lead = max(leads, key=lambda r: len(r["Name"]))
        calls = s.rows(sf, "SELECT Id, Name, EndTime__c FROM VoiceCallTranscript__c "
                           f"WHERE Lead__c = {soql_str(lead['Id'])}")
        newest = max(calls, key=lambda r: str(r.get("EndTime__c") or ""))
        return [*_search_and_open(env, "Lead", str(lead["Name"])), s.click_link(str(newest["Name"])),
                Answer(str(task.ground_truth.get("answer", "")))]


class OpportunityStageQuestion(QuestionTemplate):
    """Does the opportunity's stage fit its activities?"""

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        sf = env.org  # type: ignore[attr-defined]
        quoted = re.findall(r"[\"“]([^\"”]+)[\"”]", task.instruction)
        names = {r["Name"] for r in s.rows(sf, "SELECT Name FROM Opportunity")}
        found = next((q for q in quoted if q in names), None)
        if found is None:
            raise LookupError(f"{task.id}: no opportunity of the org is quoted in the question")
        return [*_search_and_open(env, "Opportunity", found), Answer(str(task.ground_truth.get("answer", "")))]


class TranscriptQuestion(QuestionTemplate):
    """A detail of the call between two people."""

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        sf = env.org  # type: ignore[attr-defined]
        calls = s.rows(sf, "SELECT Id, Name FROM VoiceCallTranscript__c")
        between = [c for c in calls if " with " in str(c.get("Name"))
                   and all(p.strip() in task.instruction for p in str(c["Name"]).split(" with "))]
        if not between:
            raise LookupError(f"{task.id}: no call transcript between the people the question names")
        return [*_search_and_open(env, "VoiceCallTranscript__c", str(between[0]["Name"])),
                Answer(str(task.ground_truth.get("answer", "")))]


class KnowledgeAnswerQuestion(QuestionTemplate):
    """A customer's question answered from the knowledge article that covers it."""

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        sf = env.org  # type: ignore[attr-defined]
        answer = str(task.ground_truth.get("answer", ""))
        articles = s.rows(sf, "SELECT Id, Title, Summary, Answer__c FROM Knowledge__kav")
        wanted = _words(answer) | _words(task.instruction)
        best = max(articles, key=lambda a: len(wanted & _words(" ".join(str(a.get(k) or "") for k in
                                                                         ("Title", "Summary", "Answer__c")))))
        return [*_search_and_open(env, "Knowledge__kav", str(best["Title"])), Answer(answer)]


#: setup page of the holders, the object that lists them, its name field and the field the question may use
_HOLDERS = (("Permission Sets", "PermissionSet", "Label", "Name",
             "SELECT Label, Name FROM PermissionSet WHERE IsOwnedByProfile = false"),
            ("Permission Set Groups", "PermissionSetGroup", "MasterLabel", "DeveloperName",
             "SELECT MasterLabel, DeveloperName FROM PermissionSetGroup"),
            ("Profiles", "Profile", "Name", "Name", "SELECT Name FROM Profile"))
#: objects whose names a question uses for the holders themselves, not for the settings it asks about
_NOT_SETTINGS = {"Profile", "PermissionSet", "PermissionSetGroup", "User", "Group"}


def _named(text: str, name: str) -> bool:
    """Whether ``text`` names ``name`` as a whole (not inside a longer word or name)."""
    return re.search(rf"(?<![\w:]){re.escape(name)}(?![\w])", text) is not None


class ObjectSettingsQuestion(QuestionTemplate):
    """What a permission set, group or profile may do with an object, read from its Object Settings."""

    objects = ("PermissionSet", "PermissionSetGroup", "PermissionSetGroupComponent", "Profile")

    def arrange(self, task: "Task", env: "Environment") -> None:
        """The holders and settings the questions rest on (``release.org_defaults.ORG_DEFAULT_ACCESS``), in an org this process
        serves; they go with the task's rollback. An org reached over its APIs is taken to hold its own."""
        from ..release.org_defaults import install_object_settings

        org = getattr(env, "store", None)
        if org is not None:
            install_object_settings(org)

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        sf = env.org  # type: ignore[attr-defined]
        text = task.instruction
        objects = []
        for o in sf.describe().get("sobjects", []):
            if o["name"] not in _NOT_SETTINGS and o.get("createable") and _named(text, str(o["label"])):
                objects.append(str(o.get("labelPlural") or o["label"]))
        steps: list[Action] = []
        for page, _sobject, label_field, api_field, soql in _HOLDERS:
            for row in s.rows(sf, soql):
                label, api = str(row.get(label_field) or ""), str(row.get(api_field) or "")
                if not label or not (_named(text, label) or _named(text, api)):
                    continue
                steps += [*s.setup_link(env, page), s.click_link(label), s.click_button("Object Settings")]
                for i, plural in enumerate(objects):
                    if i:
                        steps.append(s.click_button("Object Settings"))
                    steps.append(Click(f"{s.link(plural)} >> nth=-1"))  # the settings' link, not the navigation's
        if not steps or not objects:
            raise LookupError(f"{task.id}: the question names no holder of object settings or no object of the org")
        return [*steps, Answer(str(task.ground_truth.get("answer", "")))]


TEMPLATES = [ObjectSettingsQuestion("qa_admin_039"), LeadCallQuestion("qa_sales_001"), OpportunityStageQuestion("qa_sales_002"),
             TranscriptQuestion("qa_sales_003"), KnowledgeAnswerQuestion("qa_service_001")]
