"""The Taguette evaluators (checks/taguette.py) without docker: databases and exports are built here from the
start database (fixtures/prosoft/taguette/study.sqlite3) the way Taguette changes them; the right result passes
every milestone, near misses (a wrong tag, the wrong paragraph, a new tag instead of a renamed one, an unsaved
change, a file of another kind under the expected name) fail the milestone that names them, a missing artifact
fails (never errors). Ground truths are those of the generated tasks (suites/prosoft/tasks/taguette.json)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any


from suites.prosoft.templates import KINDS, TEMPLATES

from .evaluation import failed, milestones, truth_of

ROOT = Path(__file__).resolve().parents[2]
START = ROOT / "fixtures" / "prosoft" / "taguette" / "study.sqlite3"
TASKS = {t["id"]: t for t in json.loads((ROOT / "suites/prosoft/tasks/taguette.json").read_text())["tasks"]}


def db_copy(tmp_path: Path) -> tuple[Path, sqlite3.Connection]:
    path = tmp_path / "study.sqlite3"
    shutil.copy(START, path)
    return path, sqlite3.connect(path)


def tag_id(conn: sqlite3.Connection, path: str) -> int:
    return int(conn.execute("SELECT id FROM tags WHERE path = ?", (path,)).fetchone()[0])


def add_highlight(conn: sqlite3.Connection, doc: int, start: int, end: int, snippet: str, tags: list[str]) -> None:
    cur = conn.execute("INSERT INTO highlights (document_id, start_offset, end_offset, snippet) VALUES (?, ?, ?, ?)",
                       (doc, start, end, snippet))
    for tag in tags:
        conn.execute("INSERT INTO highlight_tags VALUES (?, ?)", (cur.lastrowid, tag_id(conn, tag)))
    conn.commit()


def run(task_id: str, kind: str, artifacts: dict[str, Path]) -> dict[str, str | None]:
    return milestones(kind, truth_of(TASKS, task_id, kind), artifacts)


def test_every_taguette_task_uses_known_kinds_and_start_files() -> None:
    assert len(TASKS) >= 10
    for task in TASKS.values():
        assert task["template"] in TEMPLATES, task["id"]
        steps = task["ground_truth"]["steps"] if task["template"] == "pipeline" else [task["ground_truth"]]
        assert all(s.get("template", task["template"]) in KINDS for s in steps), task["id"]
        assert task["apps"] == ["taguette"] and task["demonstration"]["actions"], task["id"]
        assert all((ROOT / f["src"]).is_file() for f in task["start_files"]), task["id"]


def test_the_start_database_fails_every_task(tmp_path: Path) -> None:
    """noop's outcome: the database as it started (nothing exported) passes no task."""
    path, _ = db_copy(tmp_path)
    for task_id, task in TASKS.items():
        steps = task["ground_truth"]["steps"] if task["template"] == "pipeline" else [task["ground_truth"]]
        results: dict[str, Any] = {}
        for step in steps:
            kind = step.get("template", task["template"])
            results.update(milestones(kind, step, {"db": path}))
        assert failed(results), task_id


# --- project -------------------------------------------------------------------------------------------------

def test_new_project(tmp_path: Path) -> None:
    path, conn = db_copy(tmp_path)
    conn.execute("INSERT INTO projects (name, description, created) VALUES ('Library survey', "
                 "'Open answers of the 2025 library survey.', '2026-01-01')")
    conn.commit()
    assert not failed(run("taguette-new-project", "taguette_project", {"db": path}))
    conn.execute("UPDATE projects SET description = 'Library survey answers' WHERE name = 'Library survey'")
    conn.commit()
    assert failed(run("taguette-new-project", "taguette_project", {"db": path})) == [
        "project 'Library survey' has the description"]
    conn.execute("UPDATE projects SET name = 'Library Survey 2025' WHERE name = 'Library survey'")
    conn.commit()
    assert "project 'Library survey' exists" in failed(run("taguette-new-project", "taguette_project", {"db": path}))


def test_new_project_in_a_fresh_database_loses_the_start_project(tmp_path: Path) -> None:
    path, conn = db_copy(tmp_path)
    conn.execute("DELETE FROM documents")
    conn.execute("INSERT INTO projects (name, description, created) VALUES ('Library survey', "
                 "'Open answers of the 2025 library survey.', '2026-01-01')")
    conn.commit()
    assert failed(run("taguette-new-project", "taguette_project", {"db": path})) == [
        "project 'Remote work interviews' keeps its documents"]


def test_document_kind(tmp_path: Path) -> None:
    path, conn = db_copy(tmp_path)
    truth = {"document": "Interview C", "contains": ["quiet place to work"]}
    assert failed(milestones("taguette_document", truth, {"db": path})) == [
        "document 'Interview C' added", "document 'Interview C' holds the file's text"]
    conn.execute("INSERT INTO documents (name, description, filename, created, project_id, text_direction, "
                 "contents) VALUES ('Interview C', '', 'c.html', '2026-01-01', 1, 'LEFT_TO_RIGHT', "
                 "'<p>Finding a quiet place to work is hard.</p>')")
    conn.commit()
    assert not failed(milestones("taguette_document", truth, {"db": path}))
    conn.execute("UPDATE documents SET contents = '<p>Another text</p>' WHERE name = 'Interview C'")
    conn.commit()
    assert failed(milestones("taguette_document", truth, {"db": path})) == [
        "document 'Interview C' holds the file's text"]


# --- tags ----------------------------------------------------------------------------------------------------

def test_new_tag(tmp_path: Path) -> None:
    path, conn = db_copy(tmp_path)
    conn.execute("INSERT INTO tags (project_id, path, description) VALUES (1, 'workspace', "
                 "'Where and how people set up their place of work')")
    conn.commit()
    assert not failed(run("taguette-new-tag", "taguette_tag_new", {"db": path}))
    conn.execute("UPDATE tags SET description = '' WHERE path = 'workspace'")
    conn.commit()
    assert failed(run("taguette-new-tag", "taguette_tag_new", {"db": path})) == ["tag 'workspace' has the description"]


def test_new_tag_by_renaming_an_existing_one_fails(tmp_path: Path) -> None:
    path, conn = db_copy(tmp_path)
    conn.execute("UPDATE tags SET path = 'workspace', description = 'Where and how people set up their place of "
                 "work' WHERE path = 'meetings'")
    conn.commit()
    assert failed(run("taguette-new-tag", "taguette_tag_new", {"db": path})) == ["the other tags are unchanged"]


def test_rename_tag(tmp_path: Path) -> None:
    path, conn = db_copy(tmp_path)
    assert failed(run("taguette-rename-tag", "taguette_tag_rename", {"db": path})) == [
        "tag 'technology' no longer in the codebook", "tag 'equipment' holds the highlights of 'technology'"]
    conn.execute("UPDATE tags SET path = 'equipment' WHERE path = 'technology'")
    conn.commit()
    assert not failed(run("taguette-rename-tag", "taguette_tag_rename", {"db": path}))


def test_rename_by_a_new_empty_tag_fails(tmp_path: Path) -> None:
    """Deleting 'technology' and creating 'equipment' loses the highlights."""
    path, conn = db_copy(tmp_path)
    conn.execute("DELETE FROM highlight_tags WHERE tag_id = ?", (tag_id(conn, "technology"),))
    conn.execute("DELETE FROM tags WHERE path = 'technology'")
    conn.execute("INSERT INTO tags (project_id, path, description) VALUES (1, 'equipment', '')")
    conn.commit()
    assert failed(run("taguette-rename-tag", "taguette_tag_rename", {"db": path})) == [
        "tag 'equipment' holds the highlights of 'technology'"]


def merge(conn: sqlite3.Connection, source: str, into: str) -> None:
    src, dst = tag_id(conn, source), tag_id(conn, into)
    conn.execute("UPDATE highlight_tags SET tag_id = ? WHERE tag_id = ?", (dst, src))
    conn.execute("DELETE FROM tags WHERE id = ?", (src,))
    conn.commit()


def test_merge_tags(tmp_path: Path) -> None:
    path, conn = db_copy(tmp_path)
    merge(conn, "loneliness", "isolation")
    assert not failed(run("taguette-merge-tags", "taguette_tag_merge", {"db": path}))


def test_merge_the_wrong_way_round_fails(tmp_path: Path) -> None:
    path, conn = db_copy(tmp_path)
    merge(conn, "isolation", "loneliness")
    assert failed(run("taguette-merge-tags", "taguette_tag_merge", {"db": path})) == [
        "tag 'loneliness' no longer in the codebook", "tag 'isolation' holds the highlights of both tags"]


def test_merge_by_deleting_the_tag_fails(tmp_path: Path) -> None:
    path, conn = db_copy(tmp_path)
    conn.execute("DELETE FROM highlight_tags WHERE tag_id = ?", (tag_id(conn, "loneliness"),))
    conn.execute("DELETE FROM tags WHERE path = 'loneliness'")
    conn.commit()
    assert failed(run("taguette-merge-tags", "taguette_tag_merge", {"db": path})) == [
        "tag 'isolation' holds the highlights of both tags"]


# --- highlights ----------------------------------------------------------------------------------------------

CHAIR = "I bought a proper chair and a second screen with my own money."


def chair_span() -> tuple[int, int]:
    import importlib.util

    spec = importlib.util.spec_from_file_location("taguette_fixtures", START.parent / "make_fixtures.py")
    assert spec and spec.loader
    fx = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fx)
    return fx.span(fx.DOCUMENTS["Interview B"], 2)  # type: ignore[no-any-return]


def test_highlight(tmp_path: Path) -> None:
    path, conn = db_copy(tmp_path)
    start, end = chair_span()
    add_highlight(conn, 2, start, end, f"<p>{CHAIR}</p>", ["technology"])
    assert not failed(run("taguette-highlight-paragraph", "taguette_highlight", {"db": path}))


def test_highlight_with_the_wrong_tag_fails(tmp_path: Path) -> None:
    path, conn = db_copy(tmp_path)
    start, end = chair_span()
    add_highlight(conn, 2, start, end, f"<p>{CHAIR}</p>", ["meetings"])
    assert failed(run("taguette-highlight-paragraph", "taguette_highlight", {"db": path})) == [
        "the highlight is tagged technology"]


def test_highlight_of_the_wrong_paragraph_or_document_fails(tmp_path: Path) -> None:
    path, conn = db_copy(tmp_path)
    add_highlight(conn, 2, 0, 53, "<p>Working remotely lets me pick up my kids from school.</p>", ["technology"])
    add_highlight(conn, 1, 0, 74, f"<p>{CHAIR}</p>", ["technology"])  # the sentence claimed in Interview A
    result = run("taguette-highlight-paragraph", "taguette_highlight", {"db": path})
    assert "a new highlight of 'Interview B' covers the passage" in failed(result)


def test_highlight_of_the_whole_document_is_too_long(tmp_path: Path) -> None:
    path, conn = db_copy(tmp_path)
    text = " ".join(["Working remotely lets me pick up my kids from school.", "Our team meetings became longer and "
                     "less focused.", CHAIR, "Sometimes I do not talk to anyone for a whole day."])
    add_highlight(conn, 2, 0, 220, f"<p>{text}</p>", ["technology"])
    assert failed(run("taguette-highlight-paragraph", "taguette_highlight", {"db": path})) == [
        "a new highlight of 'Interview B' covers the passage"]


def test_highlight_replacing_an_old_one_fails(tmp_path: Path) -> None:
    path, conn = db_copy(tmp_path)
    conn.execute("DELETE FROM highlights WHERE id = 5")
    conn.commit()
    start, end = chair_span()
    add_highlight(conn, 2, start, end, f"<p>{CHAIR}</p>", ["technology"])
    assert failed(run("taguette-highlight-paragraph", "taguette_highlight", {"db": path})) == [
        "the earlier highlights are kept"]


# --- exports -------------------------------------------------------------------------------------------------

CODEBOOK_HEADER = "tag,description,number of highlights,number of documents\r\n"


def codebook_csv(tmp_path: Path, counts: dict[str, int]) -> Path:
    path = tmp_path / "codebook.csv"
    path.write_text(CODEBOOK_HEADER + "".join(f"{t},about {t},{n},1\r\n" for t, n in counts.items()))
    return path


def test_codebook_csv(tmp_path: Path) -> None:
    want = truth_of(TASKS, "taguette-export-codebook-csv", "taguette_codebook")["tags"]
    assert not failed(run("taguette-export-codebook-csv", "taguette_codebook",
                          {"codebook": codebook_csv(tmp_path, want)}))
    stale = dict(want, technology=want["technology"] + 1)
    assert failed(run("taguette-export-codebook-csv", "taguette_codebook",
                      {"codebook": codebook_csv(tmp_path, stale)}))


def test_codebook_csv_before_the_highlight_fails_the_l2(tmp_path: Path) -> None:
    """Exported before the new highlight was saved: the counts are those of the start."""
    start = truth_of(TASKS, "taguette-export-codebook-csv", "taguette_codebook")["tags"]
    result = run("taguette-code-and-export", "taguette_codebook", {"codebook": codebook_csv(tmp_path, start)})
    assert failed(result)


def test_codebook_of_another_format_under_the_name_fails(tmp_path: Path) -> None:
    qdc = tmp_path / "codebook.csv"
    qdc.write_text('<?xml version="1.0"?><CodeBook xmlns="urn:QDA-XML:codebook:1.0"><Codes/></CodeBook>')
    assert failed(run("taguette-export-codebook-csv", "taguette_codebook", {"codebook": qdc}))
    assert failed(run("taguette-export-codebook-csv", "taguette_codebook", {}))


def test_codebook_qdc(tmp_path: Path) -> None:
    want = truth_of(TASKS, "taguette-export-codebook-qdc", "taguette_codebook")["tags"]
    codes = "".join(f'<Code guid="{i}" name="{t}" isCodable="true"/>' for i, t in enumerate(want))
    path = tmp_path / "codebook.qdc"
    path.write_text(f'<?xml version="1.0" encoding="utf-8"?><CodeBook xmlns="urn:QDA-XML:codebook:1.0" '
                    f'origin="Taguette 1.5.2"><Codes>{codes}</Codes></CodeBook>')
    assert not failed(run("taguette-export-codebook-qdc", "taguette_codebook", {"codebook": path}))
    path.write_text(CODEBOOK_HEADER)
    assert failed(run("taguette-export-codebook-qdc", "taguette_codebook", {"codebook": path}))


def highlights_csv(tmp_path: Path, rows: list[tuple[str, str, str]], ids: list[int] | None = None) -> Path:
    import csv

    path = tmp_path / "isolation.csv"
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "document", "tag", "content"])
        for n, (doc, tag, text) in zip(ids or range(1, len(rows) + 1), rows):
            writer.writerow([n, doc, tag, text])
    return path


def test_tag_highlights_export(tmp_path: Path) -> None:
    passages = truth_of(TASKS, "taguette-export-tag-highlights", "taguette_highlights_export")["passages"]
    good = highlights_csv(tmp_path, [(d, "isolation", t) for d, t in passages])
    assert not failed(run("taguette-export-tag-highlights", "taguette_highlights_export", {"highlights": good}))
    # the export of every tag (all_tags.csv) under the expected name
    everything = highlights_csv(tmp_path, [(d, "isolation", t) for d, t in passages] +
                                [("Interview A", "commute", "Not commuting saves me almost two hours a day.")])
    assert failed(run("taguette-export-tag-highlights", "taguette_highlights_export", {"highlights": everything}))
    # a highlight of the tag that has a second tag: Taguette writes it again under that tag, with its id
    rows = [(d, "isolation", t) for d, t in passages]
    two_tags = highlights_csv(tmp_path, [*rows, (rows[0][0], "commute", rows[0][2])],
                              ids=[*range(1, len(rows) + 1), 1])
    assert not failed(run("taguette-export-tag-highlights", "taguette_highlights_export", {"highlights": two_tags}))


def test_merged_highlights_export_needs_the_merge(tmp_path: Path) -> None:
    before = truth_of(TASKS, "taguette-export-tag-highlights", "taguette_highlights_export")["passages"]
    unmerged = highlights_csv(tmp_path, [(d, "isolation", t) for d, t in before])
    assert failed(run("taguette-merge-and-export", "taguette_highlights_export", {"highlights": unmerged}))
    after = truth_of(TASKS, "taguette-merge-and-export", "taguette_highlights_export")["passages"]
    merged = highlights_csv(tmp_path, [(d, "isolation", t) for d, t in after])
    assert not failed(run("taguette-merge-and-export", "taguette_highlights_export", {"highlights": merged}))


def test_a_file_that_is_no_database_fails_not_errors(tmp_path: Path) -> None:
    bogus = tmp_path / "study.sqlite3"
    bogus.write_text("not sqlite")
    result = run("taguette-rename-tag", "taguette_tag_rename", {"db": bogus})
    assert all("not a Taguette database" in (m or "") for m in result.values())
