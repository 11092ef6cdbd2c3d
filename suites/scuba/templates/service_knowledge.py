"""Service persona, knowledge: write (and publish) a knowledge article; answer a customer from one.

SCUBA's ``create_knowledge_article``: ground truth ``article_title``, ``article_published`` (the publish
status, "Online" for published), ``question_desc`` and ``answer_desc``.

Scored as SCUBA scores it (milestone_evaluator_service.py): the first article of the title; exists 0.3, publish
status 0.3 (exact), question and answer 0.4 (their text without tags and entities, exact).

``qa_service_knowledge`` is a question task: the ground truth ``answer`` is scored with SCUBA's rule (the
answer earns its token F1 when it contains the ground truth); ``article_title`` names the article a person
reads to answer (used by the demonstration only).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Sequence

from pytest_cua import EvalContext, milestone, record_answer
from pytest_cua.actions import Action, Answer, Done, Fill, Press

from . import shared as s
from .common import goto, soql_str

if TYPE_CHECKING:
    from pytest_cua import Environment, Task


def url_name(title: str) -> str:
    """The URL name a knowledge article gets from its title: "Headlamp Swap" -> "headlamp-swap"."""
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "article"


class CreateKnowledgeArticle(s.ScubaTemplate):
    """A knowledge article with its question and answer, in the requested publish status."""

    name = "create_knowledge_article"
    ground_truth_keys = ("answer_desc", "article_published", "article_title", "question_desc")
    objects = ("Knowledge__kav",)
    milestones = {"article exists": 0.3, "publish status": 0.3, "question and answer": 0.4}

    def check(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        title = str(truth.get("article_title", ""))
        found = s.checked_rows(sf, "SELECT Id, PublishStatus, Question__c, Answer__c FROM Knowledge__kav "
                                   f"WHERE Title = {soql_str(title)}")
        article = found[0] if found else None
        missing = f"no knowledge article titled {title!r}"
        with milestone("article exists"):
            assert article is not None, missing
        with milestone("publish status"):
            assert article is not None, missing
            assert article.get("PublishStatus") == truth.get("article_published"), (
                f"publish status is {article.get('PublishStatus')!r}, expected {truth.get('article_published')!r}")
        with milestone("question and answer"):
            assert article is not None, missing
            wrong = [f"{key} is {s.html_text(article.get(fname))[:120]!r}, expected {str(truth.get(key))[:120]!r}"
                     for fname, key in (("Question__c", "question_desc"), ("Answer__c", "answer_desc"))
                     if s.html_text(article.get(fname)) != truth.get(key)]
            assert not wrong, "; ".join(wrong)

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        sf.Knowledge__kav.create({"Title": truth["article_title"], "UrlName": url_name(str(truth["article_title"])),
                                  "Question__c": truth["question_desc"], "Answer__c": truth["answer_desc"],
                                  "PublishStatus": truth.get("article_published") or "Online"})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        truth = task.ground_truth
        title = str(truth["article_title"])
        # the form's labels come from the org (the release's Question__c is labelled "Question__c", as in its org)
        return [goto(env, "/lightning/o/Knowledge__kav/list"), s.click_button("New"),
                *s.fill_form(env, "Knowledge__kav", {
                    "Title": title, "UrlName": url_name(title), "Question__c": str(truth["question_desc"]),
                    "Answer__c": str(truth["answer_desc"]),
                    "PublishStatus": str(truth.get("article_published") or "Online")}),
                s.click_button("Save"), Done()]


class KnowledgeQuestion(s.ScubaTemplate):
    """A customer's question answered from a knowledge article (scored on the answer alone, SCUBA's rule)."""

    name = "qa_service_knowledge"
    ground_truth_keys = ("answer", "article_title")
    objects = ()
    milestones = {"answer": 1.0}

    def check(self, ctx: EvalContext) -> None:
        record_answer(ctx.card, ctx.answer, str(ctx.truth.get("answer", "")))

    def solve(self, task: "Task", env: "Environment") -> None:
        """Nothing to change: the oracle answers with the ground truth."""

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        truth = task.ground_truth
        title = str(truth.get("article_title", ""))
        return [goto(env, "/lightning/o/Knowledge__kav/list"),
                Fill('role=searchbox[name="Search this list..."]', title), Press("Enter"),
                s.click_link(title), Answer(str(truth["answer"]))]


TEMPLATES = [CreateKnowledgeArticle(), KnowledgeQuestion()]
