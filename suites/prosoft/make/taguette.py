"""Writes tasks/taguette.json: Taguette tasks (the NVivo stand-in: qualitative coding), L1 and L2. Run
``python suites/prosoft/make/taguette.py`` from the repository root.

Taguette 1.5.2 runs in the container in single-user mode on 127.0.0.1:7465 with the start database
``fixtures/prosoft/taguette/study.sqlite3`` (``make_fixtures.py`` there) copied to /root/taguette/; the start
command waits for Taguette's login link (its single-user token) and opens it in a Chromium app window filling
the screen. The evaluator (``checks/taguette.py``) reads the database copied out at the end, or the files the
export buttons downloaded to /root/Downloads (Chromium saves there without asking).

Demonstrations click Taguette's page at the points where it lays out in the 1280x800 app window (the page has
no keyboard access to its lists), and use its own shortcuts where it has them: after a triple click selects a
paragraph, the key ``n`` opens the new-highlight dialog, whose tag search toggles the first matching tag on
Enter and saves the highlight on a second Enter.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import C, K, SAVED, T, W, WIN, fixtures_module, task, write  # noqa: E402

fx = fixtures_module("taguette")

DB = "/root/taguette/study.sqlite3"
DOWNLOADS = "/root/Downloads"
LIMITS = {"max_steps": 80, "time_limit_s": 900}
CHROMIUM = ("chromium --no-sandbox --test-type --disable-gpu --disable-dev-shm-usage --no-first-run "
            "--no-default-browser-check --password-store=basic --force-renderer-accessibility "
            "--user-data-dir=/root/.config/cua-chromium --window-position=0,0 --window-size=1280,800")
LAUNCH = ("taguette --no-browser -b 127.0.0.1 -p 7465 --database " + DB + " > /tmp/taguette.log 2>&1 & "
          "for i in $(seq 1200); do url=$(grep -o 'http://localhost:7465/?token=[0-9a-f]*' /tmp/taguette.log) "
          "&& break; sleep 0.1; done; "
          "exec " + CHROMIUM + " --app=\"$(echo $url | sed s/localhost/127.0.0.1/)\"")
START = {"start_files": [{"src": "fixtures/prosoft/taguette/study.sqlite3", "dest": DB}],
         "start_command": ["sh", "-c", LAUNCH], "window": "^Taguette$", "window_timeout_s": 180,
         "artifacts": {"db": DB}}

# points on the 1280x800 app window (measured on its screenshots)
INDEX_PROJECT, INDEX_NEW = (211, 221), (196, 272)
NEW_NAME, NEW_DESCRIPTION, NEW_CREATE = (735, 158), (735, 226), (313, 292)
TAB = {"project": (75, 118), "documents": (195, 118), "highlights": (71, 162)}
DOC_ROW = {"Interview A": (93, 268), "Interview B": (93, 324)}
PARAGRAPH_Y = [150, 193, 236, 278]  # the first four paragraphs of a document in the view
TAG_ORDER = sorted(fx.TAGS)
TAG_Y0, TAG_DY = 299, 56  # the tag list of the Highlights tab: first row, row height
CREATE_TAG = (242, 239)
TAG_DIALOG = {"name": (546, 364), "description": (632, 427), "merge": (573, 510), "save": (686, 510)}
NEW_TAG_DIALOG = {"description": (632, 427), "save": (711, 510)}
MERGE_SELECT, MERGE_OK = (767, 389), (719, 482)
EXPORT_CODEBOOK = (158, 478)
CODEBOOK_ITEM = {"qdc": (92, 524), "csv": (65, 588)}
EXPORT_VIEW = (1161, 114)


def tag_point(tag, edit=False):
    return (250 if edit else 90, TAG_Y0 + TAG_DY * TAG_ORDER.index(tag))


OPEN_PROJECT = [C(*INDEX_PROJECT), WIN("^Remote work interviews [|] Taguette$"), W(2)]


def open_document(name):
    return [*OPEN_PROJECT, C(*TAB["documents"]), W(1), C(*DOC_ROW[name]), W(2)]


def highlight(paragraph, tag):
    """Triple click the paragraph, ``n`` (new highlight), the tag searched and toggled (Enter), saved (Enter)."""
    return [{"type": "triple_click", "target": {"x": 640, "y": PARAGRAPH_Y[paragraph]}}, W(0.8), T("n"), W(1.5),
            T(tag), W(0.5), K("enter"), W(0.5), K("enter"), W(1.5)]


def edit_tag(tag):
    return [*OPEN_PROJECT, C(*TAB["highlights"]), W(1.2), C(*tag_point(tag, edit=True)), W(1.2)]


def export_codebook(fmt):
    name = f"codebook.{fmt}"
    return [C(*TAB["project"]), W(1), C(*EXPORT_CODEBOOK), W(0.8), C(*CODEBOOK_ITEM[fmt]),
            SAVED(f"{DOWNLOADS}/{name}")]


def export_tag_csv(tag):
    """The Highlights tab, the tag (its highlights in the view), Export this view > CSV."""
    return [C(*TAB["highlights"]), W(1.2), C(*tag_point(tag)), W(2), C(*EXPORT_VIEW), W(0.8), C(1120, 272),
            SAVED(f"{DOWNLOADS}/{tag}.csv")]


def codebook_counts(extra=None, merged=None):
    counts = {t: 0 for t in fx.TAGS}
    for _doc, _index, tags in fx.HIGHLIGHTS:
        for t in tags:
            counts[t] += 1
    for t, n in (extra or {}).items():
        counts[t] = counts.get(t, 0) + n
    if merged:
        source, into = merged
        counts[into] += counts.pop(source)
    return counts


def passages(tag, merged_from=None):
    return [[doc, fx.DOCUMENTS[doc][index]] for doc, index, tags in fx.HIGHLIGHTS
            if tag in tags or (merged_from and merged_from in tags)]


CARD = ("Taguette 1.5: the project page has three tabs on the left: Project info (name, description, Export "
        "project, Export codebook as QDC/Excel/CSV/HTML...), Documents (Add a document, each document's Edit) and "
        "Highlights (the codebook: Create a tag, each tag's Edit with Merge... and Delete tag; a click on a tag shows "
        "its highlights, and 'Export this view' exports them). To code a passage, select its text in the document "
        "and press n (new highlight), tick the tags, Save & Close. Downloads land in /root/Downloads.")

tasks = [
    task("taguette-new-project", "L1",
         "Taguette is open in the browser window. Create a new project named 'Library survey' with the description "
         "'Open answers of the 2025 library survey.'",
         "taguette_project", {"name": "Library survey", "description": "Open answers of the 2025 library survey."},
         START,
         [C(*INDEX_NEW), WIN("^New project [|] Taguette$"), W(1), C(*NEW_NAME), T("Library survey"),
          C(*NEW_DESCRIPTION), T("Open answers of the 2025 library survey."), C(*NEW_CREATE),
          WIN("^Library survey [|] Taguette$"), W(1)],
         tags=["taguette"], apps=["taguette"], knowledge=CARD, **LIMITS),
    task("taguette-highlight-paragraph", "L1",
         "Taguette is open with the project 'Remote work interviews'. In the document 'Interview B', highlight the "
         "sentence 'I bought a proper chair and a second screen with my own money.' and tag it 'technology'.",
         "taguette_highlight", {"document": "Interview B", "text": fx.DOCUMENTS["Interview B"][2],
                                "tags": ["technology"]}, START,
         [*open_document("Interview B"), *highlight(2, "technology")],
         tags=["taguette"], apps=["taguette"], knowledge=CARD, **LIMITS),
    task("taguette-new-tag", "L1",
         "Taguette is open with the project 'Remote work interviews'. Add a tag 'workspace' to its codebook with the "
         "description 'Where and how people set up their place of work'.",
         "taguette_tag_new", {"tag": "workspace", "description": "Where and how people set up their place of work"},
         START,
         [*OPEN_PROJECT, C(*TAB["highlights"]), W(1.2), C(*CREATE_TAG), W(1.2), T("workspace"),
          C(*NEW_TAG_DIALOG["description"]), T("Where and how people set up their place of work"),
          C(*NEW_TAG_DIALOG["save"]), W(1.5)],
         tags=["taguette"], apps=["taguette"], knowledge=CARD, **LIMITS),
    task("taguette-rename-tag", "L1",
         "Taguette is open with the project 'Remote work interviews'. Rename the tag 'technology' to 'equipment' "
         "(keep its highlights).",
         "taguette_tag_rename", {"old": "technology", "new": "equipment"}, START,
         [*edit_tag("technology"), C(*TAG_DIALOG["name"]), K("ctrl", "a"), T("equipment"), C(*TAG_DIALOG["save"]),
          W(1.5)],
         tags=["taguette"], apps=["taguette"], knowledge=CARD, **LIMITS),
    task("taguette-merge-tags", "L1",
         "Taguette is open with the project 'Remote work interviews'. Merge the tag 'loneliness' into the tag "
         "'isolation', so that its highlights are tagged 'isolation'.",
         "taguette_tag_merge", {"source": "loneliness", "into": "isolation"}, START,
         [*edit_tag("loneliness"), C(*TAG_DIALOG["merge"]), W(1.2), C(*MERGE_SELECT), W(0.5), T("isolation"),
          K("enter"), W(0.5), C(*MERGE_OK), W(1.5)],
         tags=["taguette"], apps=["taguette"], knowledge=CARD, **LIMITS),
    task("taguette-export-codebook-csv", "L1",
         "Taguette is open with the project 'Remote work interviews'. Export its codebook as CSV (it downloads to "
         "/root/Downloads/codebook.csv).",
         "taguette_codebook", {"artifact": "codebook", "format": "csv", "tags": codebook_counts()}, START,
         [*OPEN_PROJECT, *export_codebook("csv")],
         tags=["taguette"], apps=["taguette"], artifacts={"codebook": f"{DOWNLOADS}/codebook.csv"}, knowledge=CARD,
         **LIMITS),
    task("taguette-export-codebook-qdc", "L1",
         "Taguette is open with the project 'Remote work interviews'. Export its codebook in the REFI-QDA codebook "
         "format, QDC (it downloads to /root/Downloads/codebook.qdc).",
         "taguette_codebook", {"artifact": "codebook", "format": "qdc", "tags": sorted(fx.TAGS)}, START,
         [*OPEN_PROJECT, *export_codebook("qdc")],
         tags=["taguette"], apps=["taguette"], artifacts={"codebook": f"{DOWNLOADS}/codebook.qdc"}, knowledge=CARD,
         **LIMITS),
    task("taguette-export-tag-highlights", "L1",
         "Taguette is open with the project 'Remote work interviews'. Export the highlights tagged 'isolation' as "
         "CSV (show that tag's highlights, then Export this view; it downloads to /root/Downloads/isolation.csv).",
         "taguette_highlights_export", {"artifact": "highlights", "tag": "isolation",
                                        "passages": passages("isolation")}, START,
         [*OPEN_PROJECT, *export_tag_csv("isolation")],
         tags=["taguette"], apps=["taguette"], artifacts={"highlights": f"{DOWNLOADS}/isolation.csv"},
         knowledge=CARD, **LIMITS),
    task("taguette-code-and-export", "L2",
         "Taguette is open with the project 'Remote work interviews'. In 'Interview B', highlight the sentence 'I "
         "bought a proper chair and a second screen with my own money.' and tag it 'technology'; then export the "
         "project's codebook as CSV (to /root/Downloads/codebook.csv), so that its counts include the new "
         "highlight.",
         "pipeline", {"steps": [
             {"template": "taguette_highlight", "document": "Interview B", "text": fx.DOCUMENTS["Interview B"][2],
              "tags": ["technology"]},
             {"template": "taguette_codebook", "artifact": "codebook", "format": "csv",
              "tags": codebook_counts(extra={"technology": 1})}]}, START,
         [*open_document("Interview B"), *highlight(2, "technology"), *export_codebook("csv")],
         tags=["taguette"], apps=["taguette"], artifacts={"codebook": f"{DOWNLOADS}/codebook.csv"}, knowledge=CARD,
         **LIMITS),
    task("taguette-merge-and-export", "L2",
         "Taguette is open with the project 'Remote work interviews'. Clean up the codebook: merge the tag "
         "'loneliness' into 'isolation'; then export the highlights tagged 'isolation' as CSV (to "
         "/root/Downloads/isolation.csv).",
         "pipeline", {"steps": [
             {"template": "taguette_tag_merge", "source": "loneliness", "into": "isolation"},
             {"template": "taguette_highlights_export", "artifact": "highlights", "tag": "isolation",
              "passages": passages("isolation", merged_from="loneliness")}]}, START,
         [*edit_tag("loneliness"), C(*TAG_DIALOG["merge"]), W(1.2), C(*MERGE_SELECT), W(0.5), T("isolation"),
          K("enter"), W(0.5), C(*MERGE_OK), W(2), *export_tag_csv("isolation")],
         tags=["taguette"], apps=["taguette"], artifacts={"highlights": f"{DOWNLOADS}/isolation.csv"},
         knowledge=CARD, **LIMITS),
]

if __name__ == "__main__":
    write("taguette", tasks)
