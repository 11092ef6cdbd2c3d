"""Taguette checks (the NVivo stand-in: qualitative coding): Taguette's own database (SQLite, copied out of the
container as artifact ``db``) and the files its export buttons download (codebook CSV or QDC, highlights CSV).

The start database is ``fixtures/prosoft/taguette/study.sqlite3`` (``make_fixtures.py``): project 1 "Remote work
interviews", its documents, tags and highlights. Kinds (ground-truth keys in brackets; ``project`` names the
project, default "Remote work interviews"):

- ``taguette_project``: a project created [``name``, ``description``]; the start project is still there
- ``taguette_document``: a document added to the project [``document``, ``contains``: phrases of its text]
- ``taguette_tag_new``: a tag added to the codebook [``tag``, ``description``]; the other tags unchanged
- ``taguette_tag_rename``: a tag renamed [``old``, ``new``]: ``old`` gone, ``new`` holds exactly ``old``'s
  highlights of the start database
- ``taguette_tag_merge``: a tag merged into another [``source``, ``into``]: ``source`` gone, ``into`` holds the
  highlights both had
- ``taguette_highlight``: a passage highlighted and tagged [``document``, ``text``, ``tags``]: a new highlight of
  that document covers the text (and no more than the paragraph it is in: ``max_chars``, default the text's
  length + 40) and carries exactly those tags; the start database's highlights are all still there
- ``taguette_codebook``: the codebook exported [``artifact``, ``format``: "csv" or "qdc", ``tags``: {path:
  number of highlights} (csv) or [paths] (qdc)]
- ``taguette_highlights_export``: the highlights of one tag exported as CSV [``artifact``, ``tag``, ``passages``:
  [[document, text], ...]]

A missing database or export fails the milestones that need it (the agent did not save or download).
"""

from __future__ import annotations

import csv
import html
import io
import re
import sqlite3
from pathlib import Path
from typing import Any, Mapping

from pytest_cua import fixtures_dir

from ..artifacts import Check, artifact, squash

PROJECT = "Remote work interviews"
START = "taguette/study.sqlite3"


class Db:
    """A read-only view of one Taguette database file."""

    def __init__(self, path: Path) -> None:
        try:
            conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            conn.execute("SELECT 1 FROM projects LIMIT 1")
        except sqlite3.DatabaseError as exc:
            raise AssertionError(f"{path.name}: not a Taguette database ({exc})") from None
        self.conn = conn

    def project_id(self, name: str) -> int:
        rows = self.conn.execute("SELECT id FROM projects WHERE name = ?", (name,)).fetchall()
        assert rows, f"no project named {name!r} (projects: {self.projects()})"
        return int(rows[0][0])

    def projects(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT name FROM projects ORDER BY id")]

    def tags(self, project: int) -> dict[str, tuple[int, str]]:
        return {r[1]: (int(r[0]), r[2]) for r in
                self.conn.execute("SELECT id, path, description FROM tags WHERE project_id = ?", (project,))}

    def highlights_of(self, tag_id: int) -> set[tuple[str, int, int]]:
        """(document name, start, end) of each highlight carrying the tag (ids change across exports, these
        do not)."""
        return {(r[0], int(r[1]), int(r[2])) for r in self.conn.execute(
            "SELECT d.name, h.start_offset, h.end_offset FROM highlight_tags ht JOIN highlights h ON "
            "h.id = ht.highlight_id JOIN documents d ON d.id = h.document_id WHERE ht.tag_id = ?", (tag_id,))}

    def documents(self, project: int) -> dict[str, str]:
        return {r[0]: r[1] for r in
                self.conn.execute("SELECT name, contents FROM documents WHERE project_id = ?", (project,))}

    def highlights(self, project: int) -> list[dict[str, Any]]:
        rows = self.conn.execute(
            "SELECT h.id, d.name, h.start_offset, h.end_offset, h.snippet FROM highlights h JOIN documents d ON "
            "d.id = h.document_id WHERE d.project_id = ?", (project,)).fetchall()
        out = []
        for hid, doc, start, end, snippet in rows:
            tags = [r[0] for r in self.conn.execute(
                "SELECT t.path FROM highlight_tags ht JOIN tags t ON t.id = ht.tag_id WHERE ht.highlight_id = ?",
                (hid,))]
            out.append({"document": doc, "start": int(start), "end": int(end), "text": plain(snippet),
                        "tags": sorted(tags)})
        return out


def plain(fragment: str) -> str:
    """The text of an HTML fragment, white space squashed."""
    return squash(html.unescape(re.sub(r"<[^>]+>", " ", fragment)))


def start_db() -> Db:
    path = fixtures_dir("prosoft") / START
    if not path.is_file():
        raise ValueError(f"taguette checks: start database {START!r} not found ({path})")
    return Db(path)


def _db(ctx: Any, name: str = "db") -> Db:
    return Db(artifact(ctx, name))


def _project(db: Db, truth: Mapping[str, Any]) -> int:
    return db.project_id(str(truth.get("project", PROJECT)))


def _require(truth: Mapping[str, Any], kind: str, *keys: str) -> None:
    missing = [k for k in keys if k not in truth]
    if missing:
        raise ValueError(f"{kind}: ground truth needs {', '.join(missing)}")


def _start_intact(ctx: Any, truth: Mapping[str, Any]) -> Check:
    """The start project keeps its documents (a task that starts over in a new database fails here)."""
    def check() -> None:
        db = _db(ctx, truth.get("db", "db"))
        before = start_db().documents(1)
        after = db.documents(db.project_id(PROJECT))
        lost = sorted(set(before) - set(after))
        assert not lost, f"documents of {PROJECT!r} lost: {lost}"
    return (f"project {PROJECT!r} keeps its documents", check)


# --- kinds ---------------------------------------------------------------------------------------------------

def project_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    _require(truth, "taguette_project", "name")
    name = str(truth["name"])

    def check_exists() -> None:
        _db(ctx).project_id(name)
    checks: list[Check] = [(f"project {name!r} exists", check_exists)]
    if "description" in truth:
        def check_description() -> None:
            db = _db(ctx)
            row = db.conn.execute("SELECT description FROM projects WHERE id = ?", (db.project_id(name),)).fetchone()
            assert squash(row[0]) == squash(str(truth["description"])), (
                f"project {name!r}: description {row[0]!r}, expected {truth['description']!r}")
        checks.append((f"project {name!r} has the description", check_description))
    checks.append(_start_intact(ctx, truth))
    return checks


def document_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    _require(truth, "taguette_document", "document", "contains")
    doc = str(truth["document"])

    def contents() -> str:
        db = _db(ctx)
        docs = db.documents(_project(db, truth))
        assert doc in docs, f"no document named {doc!r} in the project (documents: {sorted(docs)})"
        return plain(docs[doc])

    def check_named() -> None:
        contents()

    def check_text() -> None:
        text = contents()
        missing = [p for p in truth["contains"] if squash(p) not in text]
        assert not missing, f"document {doc!r} lacks {missing!r} (is it the right file?)"
    return [(f"document {doc!r} added", check_named), (f"document {doc!r} holds the file's text", check_text),
            _start_intact(ctx, truth)]


def tag_new_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    _require(truth, "taguette_tag_new", "tag")
    tag = str(truth["tag"])

    def tags() -> dict[str, tuple[int, str]]:
        db = _db(ctx)
        return db.tags(_project(db, truth))

    def check_exists() -> None:
        found = tags()
        assert tag in found, f"no tag {tag!r} (tags: {sorted(found)})"
    checks: list[Check] = [(f"tag {tag!r} in the codebook", check_exists)]
    if "description" in truth:
        def check_description() -> None:
            found = tags()
            assert tag in found, f"no tag {tag!r}"
            assert squash(found[tag][1]) == squash(str(truth["description"])), (
                f"tag {tag!r}: description {found[tag][1]!r}, expected {truth['description']!r}")
        checks.append((f"tag {tag!r} has the description", check_description))

    def check_others() -> None:
        before, after = start_db().tags(1), tags()
        lost = sorted(set(before) - set(after))
        assert not lost, f"tags of the codebook lost or renamed: {lost}"
    checks.append(("the other tags are unchanged", check_others))
    return checks


def tag_rename_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    _require(truth, "taguette_tag_rename", "old", "new")
    old, new = str(truth["old"]), str(truth["new"])

    def check_gone() -> None:
        db = _db(ctx)
        found = db.tags(_project(db, truth))
        assert old not in found, f"tag {old!r} is still in the codebook"

    def check_new() -> None:
        db = _db(ctx)
        found = db.tags(_project(db, truth))
        assert new in found, f"no tag {new!r} (tags: {sorted(found)})"
        start = start_db()
        want = start.highlights_of(start.tags(1)[old][0])
        got = db.highlights_of(found[new][0])
        assert got == want, (f"tag {new!r} holds {len(got)} highlight(s), not the {len(want)} of {old!r} "
                             f"(a new tag instead of the renamed one?)")
    return [(f"tag {old!r} no longer in the codebook", check_gone),
            (f"tag {new!r} holds the highlights of {old!r}", check_new)]


def tag_merge_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    _require(truth, "taguette_tag_merge", "source", "into")
    source, into = str(truth["source"]), str(truth["into"])

    def check_gone() -> None:
        db = _db(ctx)
        found = db.tags(_project(db, truth))
        assert source not in found, f"tag {source!r} is still in the codebook"

    def check_union() -> None:
        db = _db(ctx)
        found = db.tags(_project(db, truth))
        assert into in found, f"no tag {into!r} (tags: {sorted(found)})"
        start = start_db()
        tags = start.tags(1)
        want = start.highlights_of(tags[source][0]) | start.highlights_of(tags[into][0])
        got = db.highlights_of(found[into][0])
        assert got == want, f"tag {into!r} holds {len(got)} highlight(s), expected the {len(want)} of both tags"
    return [(f"tag {source!r} no longer in the codebook", check_gone),
            (f"tag {into!r} holds the highlights of both tags", check_union)]


def highlight_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    _require(truth, "taguette_highlight", "document", "text", "tags")
    doc, text, tags = str(truth["document"]), squash(str(truth["text"])), sorted(truth["tags"])
    limit = int(truth.get("max_chars", len(text) + 40))

    def new_highlights() -> list[dict[str, Any]]:
        db = _db(ctx)
        before = {(h["document"], h["start"], h["end"]) for h in start_db().highlights(1)}
        return [h for h in db.highlights(_project(db, truth)) if (h["document"], h["start"], h["end"]) not in before]

    def covering() -> list[dict[str, Any]]:
        found = [h for h in new_highlights() if h["document"] == doc and text in h["text"]]
        assert found, (f"no new highlight of {doc!r} covers {text!r} (new highlights: "
                       f"{[(h['document'], h['text'][:40]) for h in new_highlights()]})")
        return found

    def check_covers() -> None:
        found = covering()
        assert any(len(h["text"]) <= limit for h in found), (
            f"the highlight covering the passage is longer than it ({len(found[0]['text'])} characters)")

    def check_tags() -> None:
        found = covering()
        assert any(h["tags"] == tags for h in found), (
            f"the highlight is tagged {found[0]['tags']}, expected {tags}")

    def check_kept() -> None:
        db = _db(ctx)
        before = {(h["document"], h["start"], h["end"]) for h in start_db().highlights(1)}
        after = {(h["document"], h["start"], h["end"]) for h in db.highlights(_project(db, truth))}
        assert before <= after, f"{len(before - after)} highlight(s) of the start project removed"
    return [(f"a new highlight of {doc!r} covers the passage", check_covers),
            (f"the highlight is tagged {', '.join(tags)}", check_tags),
            ("the earlier highlights are kept", check_kept)]


def _read_csv(path: Path) -> list[dict[str, str]]:
    text = path.read_text(encoding="utf-8-sig", errors="replace")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert rows or text.strip(), f"{path.name}: empty file"
    return rows


def codebook_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    _require(truth, "taguette_codebook", "tags")
    name = truth.get("artifact", "codebook")
    fmt = str(truth.get("format", "csv"))
    if fmt not in ("csv", "qdc"):
        raise ValueError(f"taguette_codebook: format {fmt!r} unknown (csv or qdc)")
    want = truth["tags"]

    if fmt == "csv":
        def check() -> None:
            rows = _read_csv(artifact(ctx, name))
            assert rows and "tag" in rows[0] and "number of highlights" in rows[0], (
                f"{name}: not Taguette's codebook CSV (columns {list(rows[0]) if rows else []})")
            got = {r["tag"]: int(r["number of highlights"]) for r in rows}
            assert got == {k: int(v) for k, v in want.items()}, f"{name}: codebook {got}, expected {dict(want)}"
        label = f"{name} is the codebook as CSV with each tag's highlight count"
    else:
        def check() -> None:
            from lxml import etree

            try:
                root = etree.parse(str(artifact(ctx, name))).getroot()
            except etree.XMLSyntaxError as exc:
                raise AssertionError(f"{name}: not XML ({exc})") from None
            assert etree.QName(root).localname == "CodeBook", f"{name}: root <{etree.QName(root).localname}>, " \
                                                              "expected a REFI-QDA <CodeBook>"
            got = sorted(c.get("name", "") for c in root.iter("{*}Code"))
            assert got == sorted(want), f"{name}: codes {got}, expected {sorted(want)}"
        label = f"{name} is the codebook as REFI-QDA QDC"
    return [(label, check)]


def highlights_export_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    _require(truth, "taguette_highlights_export", "tag", "passages")
    name = truth.get("artifact", "highlights")
    tag = str(truth["tag"])
    want = sorted((d, squash(t)) for d, t in truth["passages"])

    def check() -> None:
        rows = _read_csv(artifact(ctx, name))
        assert rows and {"document", "tag", "content"} <= set(rows[0]), (
            f"{name}: not Taguette's highlights CSV (columns {list(rows[0]) if rows else []})")
        # Taguette writes a row per tag of each highlight: a highlight of the tag that has other tags too comes
        # back under those with its id; a row of another tag is wrong only for a highlight not of the tag
        ids = {r.get("id") for r in rows if r["tag"] == tag and r.get("id")}
        other = sorted({r["tag"] for r in rows if r["tag"] != tag and not (r.get("id") and r["id"] in ids)})
        assert not other, f"{name}: holds highlights of other tags too: {other}"
        got = sorted((r["document"], squash(r["content"])) for r in rows if r["tag"] == tag)
        assert got == want, f"{name}: passages {got}, expected {want}"
    return [(f"{name} holds exactly the highlights tagged {tag!r}", check)]


KINDS = {
    "taguette_project": project_checks,
    "taguette_document": document_checks,
    "taguette_tag_new": tag_new_checks,
    "taguette_tag_rename": tag_rename_checks,
    "taguette_tag_merge": tag_merge_checks,
    "taguette_highlight": highlight_checks,
    "taguette_codebook": codebook_checks,
    "taguette_highlights_export": highlights_export_checks,
}
