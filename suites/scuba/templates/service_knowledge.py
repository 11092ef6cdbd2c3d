"""Service persona, knowledge: write (and publish) a knowledge article; answer a customer from one.

SCUBA's ``create_knowledge_article``: ground truth ``article_title``, ``article_published`` (the publish
status, "Online" for published), ``question_desc`` and ``answer_desc``.

``qa_service_knowledge`` is a question task: the ground truth ``answer`` is scored with SCUBA's rule (token
F1, counted only when the answer contains the ground truth); ``article_title`` names the article a person
reads to answer (used by the demonstration only).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Sequence

from pytest_cua.actions import Action, Answer, Done, Fill, SelectOption
from pytest_cua.scoring import milestone, score_answer
from pytest_cua.suite import EvalContext, Template

from ._service_admin import checked_rows, click_button, click_link, norm, same_text
from .common import goto, soql_str

if TYPE_CHECKING:
    from pytest_cua.envs.base import Environment
    from pytest_cua.tasks import Task


def url_name(title: str) -> str:
    """The URL name a knowledge article gets from its title: "Headlamp Swap" -> "headlamp-swap"."""
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "article"


class CreateKnowledgeArticle(Template):
    """A knowledge article with its question and answer, in the requested publish status."""

    name = "create_knowledge_article"
    objects = ("Knowledge__kav",)
    milestones = {"article exists": 0.25, "publish status": 0.25, "question": 0.25, "answer": 0.25}

    def evaluate(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        title = str(truth.get("article_title", ""))
        article: dict[str, Any] | None = None
        with milestone("article exists", 0.25):
            found = checked_rows(sf, f"SELECT Id, Title, PublishStatus, Question__c, Answer__c FROM Knowledge__kav "
                                     f"WHERE Title = {soql_str(title)}")
            if not found:
                found = [a for a in checked_rows(sf, "SELECT Id, Title, PublishStatus, Question__c, Answer__c "
                                                     "FROM Knowledge__kav") if same_text(a.get("Title"), title)]
            assert found, f"no knowledge article titled {title!r}"
            article = found[-1]
        missing = f"no knowledge article {title!r}"
        with milestone("publish status", 0.25):
            assert article is not None, missing
            want = truth.get("article_published") or "Online"
            assert norm(article.get("PublishStatus")) == norm(want), (
                f"publish status is {article.get('PublishStatus')!r}, expected {want!r}")
        with milestone("question", 0.25):
            assert article is not None, missing
            assert same_text(article.get("Question__c"), truth.get("question_desc")), (
                f"question is {str(article.get('Question__c'))[:120]!r}, expected {str(truth.get('question_desc'))[:120]!r}")
        with milestone("answer", 0.25):
            assert article is not None, missing
            assert same_text(article.get("Answer__c"), truth.get("answer_desc")), (
                f"answer is {str(article.get('Answer__c'))[:120]!r}, expected {str(truth.get('answer_desc'))[:120]!r}")

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        sf.Knowledge__kav.create({"Title": truth["article_title"], "UrlName": url_name(str(truth["article_title"])),
                                  "Question__c": truth["question_desc"], "Answer__c": truth["answer_desc"],
                                  "PublishStatus": truth.get("article_published") or "Online"})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        truth = task.ground_truth
        title = str(truth["article_title"])
        return [goto(env, "/lightning/o/Knowledge__kav/list"), click_button("New"),
                Fill("label=Title", title), Fill("label=Url Name", url_name(title)),
                Fill("label=Question", str(truth["question_desc"])), Fill("label=Answer", str(truth["answer_desc"])),
                SelectOption("label=Publish Status", str(truth.get("article_published") or "Online")),
                click_button("Save"), Done()]


class KnowledgeQuestion(Template):
    """A customer's question answered from a knowledge article (scored on the answer alone)."""

    name = "qa_service_knowledge"
    objects = ()
    milestones = {"answer": 1.0}

    def evaluate(self, ctx: EvalContext) -> None:
        verdict = score_answer(ctx.answer, str(ctx.truth.get("answer", "")))
        with milestone("answer", 1.0):
            assert verdict.passed, verdict.detail

    def solve(self, task: "Task", env: "Environment") -> None:
        """Nothing to change: the oracle answers with the ground truth."""

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        truth = task.ground_truth
        title = str(truth.get("article_title", ""))
        return [goto(env, "/lightning/o/Knowledge__kav/list"),
                Fill('role=searchbox[name="Search this list..."]', title), click_button("Search"),
                click_link(title), Answer(str(truth["answer"]))]


TEMPLATES = [CreateKnowledgeArticle(), KnowledgeQuestion()]
