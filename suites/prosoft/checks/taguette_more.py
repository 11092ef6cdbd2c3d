"""More Taguette checks (the NVivo stand-in): the operations of ``make/taguette_more.py`` that the first kinds
(``checks/taguette.py``) do not cover, read from Taguette's database copied out of the container (artifact
``db``) against the start database ``fixtures/prosoft/taguette/study.sqlite3``.

Kinds (ground-truth keys in brackets):

- ``taguette_project_meta``: the start project's name and description edited on its Project info tab [``name``,
  ``description``]: the project that holds the start documents (Taguette keeps its id) carries them; a new
  project of that name does not count
- ``taguette_tag_edit``: a tag's description changed [``tag``, ``description``, ``was``: its name at the start,
  default ``tag``]: the tag keeps the highlights it had at the start (a tag deleted and created again loses them)
- ``taguette_highlight_delete``: a highlight deleted [``document``, ``text``]: no highlight of the document covers
  the text any more; every other highlight of the start database is still there with its tags; the codebook
  keeps its tags (deleting the tag instead leaves the passage highlighted, untagged)
- ``taguette_highlight_tags``: the tags of an existing highlight changed [``document``, ``text``, ``tags``]: the
  start highlight covering the text (same offsets) carries exactly ``tags``; no highlight was added or removed
  (a second highlight over the same passage is not an edit)
- ``taguette_recode``: a passage highlighted anew where other highlights were deleted [``document``, ``text``,
  ``tags``, ``deleted``: [[document, text], ...] the start highlights the task deletes]: ``taguette_highlight``'s
  milestones, the earlier highlights kept except those deleted
- ``taguette_tag_view_export``: the highlights of one tag exported as CSV (Export this view) [``artifact``
  (default "highlights"), ``tag``, ``passages``: [[document, text], ...]]: the rows of that tag are exactly the
  passages; Taguette writes a row per tag of each highlight, so rows of other tags are allowed only for a
  highlight (the ``id`` column) that also has a row of the tag (the export of every tag has others)
- ``taguette_codebook_descriptions``: the codebook exported as CSV [``artifact`` (default "codebook"),
  ``descriptions`` {tag: description}]: Taguette's codebook CSV whose rows of those tags carry those descriptions

A missing database fails every milestone (the agent never saved); a file that is not a Taguette database fails
them naming it.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Mapping

from ..artifacts import Check, artifact, squash
from .taguette import PROJECT, _db, _project, _read_csv, _require, highlight_checks, start_db


def _start_project_id() -> int:
    return start_db().project_id(PROJECT)


def project_meta_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    _require(truth, "taguette_project_meta", "name")
    name = str(truth["name"])

    def row() -> tuple[str, str]:
        db = _db(ctx)
        found = db.conn.execute("SELECT name, description FROM projects WHERE id = ?", (_start_project_id(),)
                                ).fetchone()
        assert found, f"the project {PROJECT!r} was deleted (projects: {db.projects()})"
        docs = set(db.documents(_start_project_id()))
        lost = sorted(set(start_db().documents(_start_project_id())) - docs)
        assert not lost, f"the project lost its documents {lost}"
        return str(found[0]), str(found[1] or "")

    def check_name() -> None:
        got = row()[0]
        others = [p for p in _db(ctx).projects() if p == name]
        assert squash(got) == squash(name), (
            f"the project with the interviews is named {got!r}, expected {name!r}"
            + (" (a new project of that name was created instead)" if others else ""))
    checks: list[Check] = [(f"the interviews project is named {name!r}", check_name)]
    if "description" in truth:
        want = str(truth["description"])

        def check_description() -> None:
            got = row()[1]
            assert squash(got) == squash(want), f"the project's description is {got!r}, expected {want!r}"
        checks.append(("the project has the new description", check_description))
    return checks


def tag_edit_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    _require(truth, "taguette_tag_edit", "tag", "description")
    tag, want, was = str(truth["tag"]), str(truth["description"]), str(truth.get("was", truth["tag"]))

    def found() -> tuple[Any, tuple[int, str]]:
        db = _db(ctx)
        tags = db.tags(_project(db, truth))
        assert tag in tags, f"no tag {tag!r} (tags: {sorted(tags)})"
        return db, tags[tag]

    def check_description() -> None:
        _, (_, description) = found()
        assert squash(description) == squash(want), f"tag {tag!r}: description {description!r}, expected {want!r}"

    def check_highlights() -> None:
        db, (tag_id, _) = found()
        start = start_db()
        before = start.highlights_of(start.tags(1)[was][0])
        got = db.highlights_of(tag_id)
        assert got == before, (f"tag {tag!r} holds {len(got)} highlight(s), not its {len(before)} of the start "
                               "(deleted and created again?)")
    return [(f"tag {tag!r} has the new description", check_description),
            (f"tag {tag!r} keeps its highlights", check_highlights)]


def _span_key(h: Mapping[str, Any]) -> tuple[str, int, int]:
    return (str(h["document"]), int(h["start"]), int(h["end"]))


def _start_highlight(doc: str, text: str) -> dict[str, Any]:
    found = [h for h in start_db().highlights(1) if h["document"] == doc and squash(text) in h["text"]]
    if not found:
        raise ValueError(f"no highlight of {doc!r} covers {text!r} in the start database")
    return found[0]


def highlight_delete_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    _require(truth, "taguette_highlight_delete", "document", "text")
    doc, text = str(truth["document"]), squash(str(truth["text"]))
    target = _span_key(_start_highlight(doc, text))

    def highlights() -> list[dict[str, Any]]:
        db = _db(ctx)
        return db.highlights(_project(db, truth))

    def check_gone() -> None:
        left = [h for h in highlights() if h["document"] == doc and text in h["text"]]
        assert not left, (f"{doc!r}: the passage {text[:40]!r}... is still highlighted (tags "
                          f"{[h['tags'] for h in left]})")

    def check_others() -> None:
        after = {_span_key(h): h["tags"] for h in highlights()}
        lost = [f"{d} {s}-{e}" for (d, s, e) in (_span_key(h) for h in start_db().highlights(1))
                if (d, s, e) != target and (d, s, e) not in after]
        changed = [f"{h['document']} {h['start']}-{h['end']}" for h in start_db().highlights(1)
                   if _span_key(h) != target and _span_key(h) in after and after[_span_key(h)] != h["tags"]]
        assert not lost and not changed, (f"other highlights deleted: {lost}" if lost else
                                          f"other highlights retagged: {changed}")

    def check_codebook() -> None:
        db = _db(ctx)
        lost = sorted(set(start_db().tags(1)) - set(db.tags(_project(db, truth))))
        assert not lost, f"tags deleted from the codebook: {lost}"
    return [(f"the highlight of {doc!r} is deleted", check_gone),
            ("the other highlights are kept", check_others),
            ("the codebook keeps its tags", check_codebook)]


def highlight_tags_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    _require(truth, "taguette_highlight_tags", "document", "text", "tags")
    doc, text, tags = str(truth["document"]), squash(str(truth["text"])), sorted(truth["tags"])
    target = _span_key(_start_highlight(doc, text))

    def highlights() -> list[dict[str, Any]]:
        db = _db(ctx)
        return db.highlights(_project(db, truth))

    def check_tags() -> None:
        same = [h for h in highlights() if _span_key(h) == target]
        assert same, f"the highlight of {doc!r} over {text[:40]!r}... was deleted"
        assert any(h["tags"] == tags for h in same), f"the highlight is tagged {same[0]['tags']}, expected {tags}"

    def check_count() -> None:
        before = Counter(_span_key(h) for h in start_db().highlights(1))
        after = Counter(_span_key(h) for h in highlights())
        added, removed = after - before, before - after
        assert not added and not removed, (
            f"highlights added {sorted(added)}" if added else f"highlights removed {sorted(removed)}")
    return [(f"the highlight of {doc!r} is tagged {', '.join(tags)}", check_tags),
            ("no highlight added or removed (the existing one edited)", check_count)]


def recode_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    _require(truth, "taguette_recode", "document", "text", "tags", "deleted")
    deleted = {_span_key(_start_highlight(str(d), squash(str(t)))) for d, t in truth["deleted"]}

    def check_kept() -> None:
        db = _db(ctx)
        after = {_span_key(h) for h in db.highlights(_project(db, truth))}
        lost = [f"{d} {s}-{e}" for d, s, e in (_span_key(h) for h in start_db().highlights(1))
                if (d, s, e) not in deleted and (d, s, e) not in after]
        assert not lost, f"highlights of the start project removed besides the one to delete: {lost}"
    checks = [c for c in highlight_checks(ctx, truth) if c[0] != "the earlier highlights are kept"]
    return [*checks, ("the other earlier highlights are kept", check_kept)]


def tag_view_export_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    _require(truth, "taguette_tag_view_export", "tag", "passages")
    name = truth.get("artifact", "highlights")
    tag = str(truth["tag"])
    want = sorted((str(d), squash(str(t))) for d, t in truth["passages"])

    def check() -> None:
        rows = _read_csv(artifact(ctx, name))
        assert rows and {"id", "document", "tag", "content"} <= set(rows[0]), (
            f"{name}: not Taguette's highlights CSV (columns {list(rows[0]) if rows else []})")
        ids = {r["id"] for r in rows if r["tag"] == tag}
        other = sorted({r["tag"] for r in rows if r["id"] not in ids})
        assert not other, f"{name}: holds highlights without the tag {tag!r} (tagged {other})"
        got = sorted((r["document"], squash(r["content"])) for r in rows if r["tag"] == tag)
        assert got == want, f"{name}: passages tagged {tag!r} {got}, expected {want}"
    return [(f"{name} holds exactly the highlights tagged {tag!r}", check)]


def codebook_descriptions_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    _require(truth, "taguette_codebook_descriptions", "descriptions")
    name = truth.get("artifact", "codebook")
    want = {str(k): str(v) for k, v in truth["descriptions"].items()}

    def check() -> None:
        rows = _read_csv(artifact(ctx, name))
        assert rows and {"tag", "description"} <= set(rows[0]), (
            f"{name}: not Taguette's codebook CSV (columns {list(rows[0]) if rows else []})")
        got = {r["tag"]: squash(r["description"] or "") for r in rows}
        wrong = {t: got.get(t) for t, d in want.items() if got.get(t) != squash(d)}
        assert not wrong, f"{name}: descriptions {wrong}, expected {want}"
    return [(f"{name} is the codebook with the new descriptions of {', '.join(sorted(want))}", check)]


KINDS = {
    "taguette_project_meta": project_meta_checks,
    "taguette_tag_edit": tag_edit_checks,
    "taguette_highlight_delete": highlight_delete_checks,
    "taguette_highlight_tags": highlight_tags_checks,
    "taguette_recode": recode_checks,
    "taguette_tag_view_export": tag_view_export_checks,
    "taguette_codebook_descriptions": codebook_descriptions_checks,
}
