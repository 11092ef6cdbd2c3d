"""Writes tasks/taguette_more.json: more Taguette tasks (the NVivo stand-in: qualitative coding), L1 and L2, on
the operations the first ones (``make/taguette.py``) leave out: adding a document, the project's name and
description, a tag's description, deleting a highlight, retagging one, and L2 tasks that chain them with the
codebook and highlight exports. Run ``python suites/prosoft/make/taguette_more.py`` from the repository root.

The tasks start as the first ones do (``make/taguette.py``'s START: Taguette 1.5.2 single-user on
127.0.0.1:7465 with ``fixtures/prosoft/taguette/study.sqlite3``, in a 1280x800 Chromium app window); the
document import also copies ``fixtures/prosoft/taguette/interview_c.html`` to /root/work. Evaluators:
``checks/taguette.py`` and ``checks/taguette_more.py`` on the database copied out at the end and the files the
export buttons downloaded.

Demonstrations click the page where it lays out in that window (measured on its screenshots) and use its keys
where it has them: a click on a highlighted passage opens that highlight's dialog (its tag search focused:
typing a tag's name and Enter toggles it, a second Enter saves); Chromium's file chooser takes a typed path
after Ctrl+L; Taguette asks before it deletes (a browser confirm, accepted with Enter).
"""
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from common import GONE, WIN, C, K, P, T, W, task, write  # noqa: E402
from librecad_more import fresh_import  # noqa: E402

base = fresh_import("taguette_make", HERE / "taguette.py")
fx = base.fx

START, LIMITS, CARD, DOWNLOADS = base.START, base.LIMITS, base.CARD, base.DOWNLOADS
LIMITS_L2 = {"max_steps": 120, "time_limit_s": 1200}
IMPORT = "/root/work/interview_c.html"
START_IMPORT = {**START, "start_files": [*START["start_files"],
                                         {"src": "fixtures/prosoft/taguette/interview_c.html", "dest": IMPORT}]}
C_NAME, C_PARAGRAPHS = fx.IMPORTS["interview_c.html"]
RENAMED = "Remote work study 2025"
RENAMED_DESCRIPTION = "Interviews of the 2025 wave about working from home."

# points on the 1280x800 app window (measured on its screenshots)
ADD_DOCUMENT = (225, 208)  # Documents tab: "Add a document"
ADD_DIALOG = {"name": (440, 342), "file": (705, 340), "import": (886, 534)}
CHOOSER_OPEN = (1152, 771)  # the file chooser's Open button
PROJECT_FIELDS = {"name": (158, 252), "description": (150, 358), "blur": (160, 700)}
HIGHLIGHT_DIALOG_DELETE = (787, 572)
TAG_DESCRIPTION = base.TAG_DIALOG["description"]

KW = {"tags": ["taguette"], "apps": ["taguette"], "knowledge": CARD}


def add_document(name):
    """Documents tab, Add a document, the name, the file (Chromium's chooser: Ctrl+L, the path, End to take
    the chooser's completion, Open; Enter there closes the chooser without a file), Import; the new document
    opens in the view."""
    return [C(*base.TAB["documents"]), W(1), C(*ADD_DOCUMENT), W(1.5), C(*ADD_DIALOG["name"]), T(name),
            C(*ADD_DIALOG["file"]), WIN("^Open File$"), W(1.5), K("ctrl", "l"), W(0.5), T(IMPORT), W(1),
            P("end"), W(0.5), C(*CHOOSER_OPEN), GONE("^Open File$"), W(1), C(*ADD_DIALOG["import"]), W(3)]


def edit_project(name, description):
    """Project info tab: the name and description fields (saved when a field loses focus)."""
    return [C(*base.TAB["project"]), W(1), C(*PROJECT_FIELDS["name"]), K("ctrl", "a"), T(name),
            C(*PROJECT_FIELDS["description"]), K("ctrl", "a"), T(description), C(*PROJECT_FIELDS["blur"]), W(2)]


def tag_description(tag, description):
    """The tag's Edit button on the Highlights tab, its description replaced, Save & Close."""
    return [C(*base.TAB["highlights"]), W(1.2), C(*base.tag_point(tag, edit=True)), W(1.2), C(*TAG_DESCRIPTION),
            K("ctrl", "a"), T(description), C(*base.TAG_DIALOG["save"]), W(1.5)]


def click_highlight(paragraph):
    """A click on a highlighted paragraph of the document in the view opens that highlight's dialog."""
    return [C(400, base.PARAGRAPH_Y[paragraph]), W(1.5)]


def delete_highlight(paragraph):
    return [*click_highlight(paragraph), C(*HIGHLIGHT_DIALOG_DELETE), W(1.5)]


def toggle_tag(paragraph, tag):
    """The highlight's dialog, the tag searched and toggled (Enter), saved (Enter)."""
    return [*click_highlight(paragraph), T(tag), W(0.5), K("enter"), W(0.5), K("enter"), W(1.5)]


def counts(extra=None):
    return base.codebook_counts(extra=extra)


def passages_with(tag, extra=()):
    """The start's passages tagged ``tag`` and ``extra`` [[document, text]]."""
    return [*base.passages(tag), *[list(p) for p in extra]]


A, B = fx.DOCUMENTS["Interview A"], fx.DOCUMENTS["Interview B"]

tasks = [
    task("taguette-add-document", "L1",
         "Taguette is open with the project 'Remote work interviews'. Add the document /root/work/interview_c.html "
         "to the project under the name 'Interview C'.",
         "taguette_document", {"document": C_NAME, "contains": C_PARAGRAPHS}, START_IMPORT,
         [*base.OPEN_PROJECT, *add_document(C_NAME)], **KW, **LIMITS),
    task("taguette-rename-project", "L1",
         f"Taguette is open with the project 'Remote work interviews'. On its Project info tab, rename the project "
         f"to '{RENAMED}' and set its description to '{RENAMED_DESCRIPTION}'",
         "taguette_project_meta", {"name": RENAMED, "description": RENAMED_DESCRIPTION}, START,
         [*base.OPEN_PROJECT, *edit_project(RENAMED, RENAMED_DESCRIPTION)], **KW, **LIMITS),
    task("taguette-tag-description", "L1",
         "Taguette is open with the project 'Remote work interviews'. Change the description of the tag 'meetings' "
         "to 'Online meetings and how they changed'.",
         "taguette_tag_edit", {"tag": "meetings", "description": "Online meetings and how they changed"}, START,
         [*base.OPEN_PROJECT, *tag_description("meetings", "Online meetings and how they changed")], **KW, **LIMITS),
    task("taguette-delete-highlight", "L1",
         f"Taguette is open with the project 'Remote work interviews'. In the document 'Interview B', delete the "
         f"highlight on the sentence '{B[1]}' (keep the tag 'meetings' in the codebook).",
         "taguette_highlight_delete", {"document": "Interview B", "text": B[1]}, START,
         [*base.open_document("Interview B"), *delete_highlight(1)], **KW, **LIMITS),
    task("taguette-retag-highlight", "L1",
         f"Taguette is open with the project 'Remote work interviews'. In 'Interview B', the highlight on "
         f"'{B[3]}' is tagged 'loneliness'; tag that highlight 'isolation' as well (edit the existing highlight).",
         "taguette_highlight_tags", {"document": "Interview B", "text": B[3], "tags": ["isolation", "loneliness"]},
         START, [*base.open_document("Interview B"), *toggle_tag(3, "isolation")], **KW, **LIMITS),
]

CODEBOOK = {"codebook": f"{DOWNLOADS}/codebook.csv"}
CODEBOOK_QDC = {"codebook": f"{DOWNLOADS}/codebook.qdc"}
WORKSPACE_TAG = ("workspace", "Where and how people set up their place of work")
EQUIPMENT = "Equipment bought for or missing at home"
DESCRIBED = {"meetings": "Online meetings and how they changed", "family": "Children, partners and care at home"}


def highlights_export(tag):
    return {"highlights": f"{DOWNLOADS}/{tag}.csv"}


def new_tag(tag, description):
    """Highlights tab, Create a tag, its name (the field is focused) and description, Save & Close."""
    return [C(*base.TAB["highlights"]), W(1.2), C(*base.CREATE_TAG), W(1.2), T(tag),
            C(*base.NEW_TAG_DIALOG["description"]), T(description), C(*base.NEW_TAG_DIALOG["save"]), W(1.5)]


tasks += [
    task("taguette-import-and-code", "L2",
         f"Taguette is open with the project 'Remote work interviews'. Add the document /root/work/interview_c.html "
         f"as 'Interview C'; in it, highlight the sentence '{C_PARAGRAPHS[1]}' and tag it 'meetings'; then export "
         f"the codebook as CSV (to /root/Downloads/codebook.csv), so that its counts include the new highlight.",
         "pipeline", {"steps": [
             {"template": "taguette_document", "document": C_NAME, "contains": C_PARAGRAPHS},
             {"template": "taguette_highlight", "document": C_NAME, "text": C_PARAGRAPHS[1], "tags": ["meetings"]},
             {"template": "taguette_codebook", "artifact": "codebook", "format": "csv",
              "tags": counts({"meetings": 1})}]}, START_IMPORT,
         [*base.OPEN_PROJECT, *add_document(C_NAME), *base.highlight(1, "meetings"), *base.export_codebook("csv")],
         artifacts=CODEBOOK, **KW, **LIMITS_L2),
    task("taguette-retag-and-export", "L2",
         f"Taguette is open with the project 'Remote work interviews'. In 'Interview B', the highlight on '{B[3]}' "
         f"is tagged 'loneliness': tag that highlight 'isolation' as well, then export the highlights tagged "
         f"'isolation' as CSV (Export this view; to /root/Downloads/isolation.csv).",
         "pipeline", {"steps": [
             {"template": "taguette_highlight_tags", "document": "Interview B", "text": B[3],
              "tags": ["isolation", "loneliness"]},
             {"template": "taguette_tag_view_export", "artifact": "highlights", "tag": "isolation",
              "passages": passages_with("isolation", [("Interview B", B[3])])}]}, START,
         [*base.open_document("Interview B"), *toggle_tag(3, "isolation"), *base.export_tag_csv("isolation")],
         artifacts=highlights_export("isolation"), **KW, **LIMITS_L2),
    task("taguette-rename-tag-and-qdc", "L2",
         f"Taguette is open with the project 'Remote work interviews'. Rename the tag 'technology' to 'equipment' "
         f"(keeping its highlights) and describe it as '{EQUIPMENT}'; then export the codebook in the REFI-QDA "
         f"format, QDC (to /root/Downloads/codebook.qdc).",
         "pipeline", {"steps": [
             {"template": "taguette_tag_rename", "old": "technology", "new": "equipment"},
             {"template": "taguette_tag_edit", "tag": "equipment", "was": "technology", "description": EQUIPMENT},
             {"template": "taguette_codebook", "artifact": "codebook", "format": "qdc",
              "tags": sorted({*fx.TAGS} - {"technology"} | {"equipment"})}]}, START,
         [*base.edit_tag("technology"), C(*base.TAG_DIALOG["name"]), K("ctrl", "a"), T("equipment"),
          C(*TAG_DESCRIPTION), K("ctrl", "a"), T(EQUIPMENT), C(*base.TAG_DIALOG["save"]), W(1.5),
          *base.export_codebook("qdc")],
         artifacts=CODEBOOK_QDC, **KW, **LIMITS_L2),
    task("taguette-second-wave", "L2",
         f"Taguette is open with the project 'Remote work interviews'. Prepare it for the second wave: rename the "
         f"project to '{RENAMED}' with the description '{RENAMED_DESCRIPTION}', create the tag "
         f"'{WORKSPACE_TAG[0]}' described as '{WORKSPACE_TAG[1]}', and in 'Interview B' tag the sentence '{B[2]}' "
         f"with it.",
         "pipeline", {"steps": [
             {"template": "taguette_project_meta", "name": RENAMED, "description": RENAMED_DESCRIPTION},
             {"template": "taguette_tag_new", "project": RENAMED, "tag": WORKSPACE_TAG[0],
              "description": WORKSPACE_TAG[1]},
             {"template": "taguette_highlight", "project": RENAMED, "document": "Interview B", "text": B[2],
              "tags": [WORKSPACE_TAG[0]]}]}, START,
         [*base.OPEN_PROJECT, *edit_project(RENAMED, RENAMED_DESCRIPTION), *new_tag(*WORKSPACE_TAG),
          C(*base.TAB["documents"]), W(1), C(*base.DOC_ROW["Interview B"]), W(2), *base.highlight(2, WORKSPACE_TAG[0])],
         **KW, **LIMITS_L2),
    task("taguette-fix-coding", "L2",
         f"Taguette is open with the project 'Remote work interviews'. Fix the coding of 'Interview B': delete the "
         f"highlight on '{B[1]}', highlight '{B[2]}' with the tag 'technology' instead, and export the highlights "
         f"tagged 'technology' as CSV (Export this view; to /root/Downloads/technology.csv).",
         "pipeline", {"steps": [
             {"template": "taguette_highlight_delete", "document": "Interview B", "text": B[1]},
             {"template": "taguette_recode", "document": "Interview B", "text": B[2], "tags": ["technology"],
              "deleted": [["Interview B", B[1]]]},
             {"template": "taguette_highlights_export", "artifact": "highlights", "tag": "technology",
              "passages": passages_with("technology", [("Interview B", B[2])])}]}, START,
         [*base.open_document("Interview B"), *delete_highlight(1), *base.highlight(2, "technology"),
          *base.export_tag_csv("technology")],
         artifacts=highlights_export("technology"), **KW, **LIMITS_L2),
    task("taguette-describe-and-export", "L2",
         "Taguette is open with the project 'Remote work interviews'. Document the codebook: describe the tag "
         "'meetings' as '" + DESCRIBED["meetings"] + "' and the tag 'family' as '" + DESCRIBED["family"] + "', then "
         "export the codebook as CSV (to /root/Downloads/codebook.csv).",
         "pipeline", {"steps": [
             {"template": "taguette_tag_edit", "tag": "meetings", "description": DESCRIBED["meetings"]},
             {"template": "taguette_tag_edit", "tag": "family", "description": DESCRIBED["family"]},
             {"template": "taguette_codebook_descriptions", "artifact": "codebook", "descriptions": DESCRIBED}]},
         START,
         [*base.OPEN_PROJECT, *tag_description("meetings", DESCRIBED["meetings"]),
          *tag_description("family", DESCRIBED["family"]), *base.export_codebook("csv")],
         artifacts=CODEBOOK, **KW, **LIMITS_L2),
]

if __name__ == "__main__":
    write("taguette_more", tasks)
