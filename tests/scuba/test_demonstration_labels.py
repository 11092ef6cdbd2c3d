"""The demonstrations of SCUBA's release (``memory`` in ``data/test_demo_aug.json``) describe the real Salesforce
UI: every control label and menu name a template's demonstration quotes must be on a page the template's
replayed demonstration visits (issue 11, requirement 2).

- unit tests of the extraction (``demo_labels.py``) on snippets of the release, and of the check on a made-up
  trajectory;
- the real check: one inner ``--agent replay`` run of the first release task of a sample of templates (in CI the
  templates of :data:`CI_TEMPLATES`, one per UI family; ``PYTEST_CUA_LABEL_TEMPLATES=all`` for every template
  whose demonstration names a label, or a comma list of templates), each task must pass, then no label may be
  absent from the pages of its trajectory. ``PYTEST_CUA_LABEL_TRAJECTORIES=DIR`` checks the trajectories of an
  earlier run instead (``<reports>/trajectories/<run id>``, or a reports folder): the first task of every
  template found there.

Phrases of the demonstrations that are not controls of our pages (logging in, keyboard keys, ...) are listed,
each with its reason, in ``fixtures/demo_label_exceptions.json``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Mapping

import pytest

from . import demo_labels as dl
from .release_root import DEMO_AUG, release_root, require_release

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]

RELEASE = release_root()  # $PYTEST_CUA_SCUBA_ROOT, else <repository>/../shared/scuba/release
CHROMIUM = Path("/usr/bin/chromium")
EXCEPTIONS = HERE / "fixtures" / "demo_label_exceptions.json"
RUN_TIMEOUT_S = 3600

# One template per UI family, fixed so that CI checks the same pages every time.
CI_TEMPLATES = (
    "create_report",                 # report builder (Reports tab, report types, builder, saved report)
    "create_list_view",              # list views of an object (list, new list view, filters)
    "create_app",                    # Setup wizard (App Manager, New Lightning App steps)
    "create_permission_set_medium",  # Setup security (permission sets, object settings)
    "create_entitlement_record",     # a record created from an object's list via the App Launcher
    "convert_lead",                  # a record page action (Convert)
)


# --- extraction on the release's own text ----------------------------------------------------------------------

CREATE_REPORT = """## Similar task and experience

Sample 1:
TASK:Create a report with [Leads] type with name [MyLeadRPT]. Add a [standard filter] to select records whose \
[Lead Status] field [equals to] [Open - Not Contacted].
EXPERIENCE:
Successful plan:

- Log in to Salesforce.
- Open App Launcher, search for “reports,” and open Reports.
- Click New Report.
- In Report Type, search for “leads,” select Leads, and click Start Report.
- Open Filters panel and add a standard filter:
  - Search/select Lead Status.
  - Set equals to “Open - Not Contacted” and Apply.
- Save the report:
  - Enter report name “MyLeadRPT” and click Save.
"""

LIST_VIEW_SHARE = """Sample 1:
TASK:Create a list view of records of the [Opportunity] object. The list is named as [ByAmount]. Include only \
[Account Name] and [Amount] field. The list view should only be accsible to [CFO] and [Channel Sales Team].
EXPERIENCE:
- Open List View Controls > New.
- Name the list “ByAmount.”
- Set visibility to "Share list view with group of users."
- Choose Roles, search and add “CFO” and “Channel Sales Team.”
- Open List View Controls > Select Fields to Display.
- Set List Name: AllCasesByPriority.
"""


def test_quoted_labels_are_found_with_curly_and_straight_quotes() -> None:
    labels = dl.demonstration_labels(LIST_VIEW_SHARE)
    assert "Share list view with group of users" in labels  # straight quotes, trailing period dropped
    assert dl.quoted_phrases("search for “reports,” and open") == ["reports"]


def test_unquoted_labels_after_verbs_and_in_menu_paths() -> None:
    labels = dl.demonstration_labels(CREATE_REPORT)
    for label in ("App Launcher", "New Report", "Report Type", "Start Report", "Filters", "Save"):
        assert label in labels, labels
    assert dl.menu_path_phrases("- Open List View Controls > Select Fields to Display.") == \
        ["List View Controls", "Select Fields to Display"]
    assert dl.verb_phrases("Click Save & Run, set Report Name to “X”") == ["Save & Run", "Report Name"]
    assert dl.bullet_labels("  - Chart Title: Leads by Source.") == ["Chart Title"]


def test_the_samples_own_data_is_not_a_label() -> None:
    labels = dl.demonstration_labels(CREATE_REPORT) + dl.demonstration_labels(LIST_VIEW_SHARE)
    for data in ("MyLeadRPT", "Open - Not Contacted", "Leads", "Lead Status", "ByAmount", "CFO",
                 "Channel Sales Team", "AllCasesByPriority"):
        assert data not in labels, (data, labels)
    assert "List Name" in labels  # the label of "List Name: AllCasesByPriority" stays, its value goes


def test_typed_values_and_identifiers_are_not_labels() -> None:
    memory = """Sample 1:
TASK:For the opportunity Cloud Software Deal, Schedule an event for meeting with the client to discuss \
implementation timeline..
EXPERIENCE:
- Navigate to Opportunities and open the “Cloud Software Deal” opportunity.
  - Click New Event.
  - Enter Subject: “Meeting to Discuss Implementation Timeline.”
  - Enter Label: “MarketingInsightsUserGroup”.
- Use the Global Search Bar: click it and type "alice bob".
"""
    labels = dl.demonstration_labels(memory)
    assert sorted(labels) == ["Global Search Bar", "Label", "New Event", "Opportunities", "Subject", "alice bob"]


def test_a_verb_inside_a_name_starts_no_label() -> None:
    text = "- Click Permission Sets in Group > Add Permission Set.\n- open Permission Set Group Assignments."
    assert dl.verb_phrases(text) == ["Permission Sets", "Permission Set Group Assignments"]  # no "Group" alone
    assert dl.menu_path_phrases(text) == ["Permission Sets in Group", "Add Permission Set"]


def test_plan_words_are_not_labels() -> None:
    labels = dl.demonstration_labels(CREATE_REPORT)
    assert not [label for label in labels if label.lower().startswith(("click ", "open ", "set ", "enter "))]
    assert dl.clean_label("Set Up Roles") == "Set Up Roles" and dl.clean_label("Set as Active") == "Set as Active"


def test_a_demonstration_without_samples_names_nothing() -> None:
    assert dl.demonstration_labels("## Similar task and experience\n\n") == []


# --- the vocabulary of a page and the check --------------------------------------------------------------------

AXTREE = """banner
  [e1] button "App Launcher"
  [e2] searchbox "Search" [value="reports"]
main
  heading "New Leads Report" [level=1]
  [e3] combobox "Operator" [value="equals", options="equals | not equal to | greater or equal"]
  [e6] combobox "Lockout effective period" [value="15 minutes", options="15 minutes | Forever (must be reset by admin)"]
  [e4] textbox "Report Name" [value="Typed Only Here", required=true]
  text "Report \\"MyLeadRPT\\" was saved."
  [e5] link "Reports"
"""


def test_the_vocabulary_holds_names_texts_and_options_not_typed_text() -> None:
    vocabulary = dl.axtree_vocabulary(AXTREE)
    assert {"App Launcher", "Operator", "greater or equal", "Report Name", 'Report "MyLeadRPT" was saved.',
            "Reports", "equals"} <= vocabulary
    assert "Typed Only Here" not in vocabulary and "reports" not in vocabulary
    assert dl.is_present("reports", vocabulary)  # a search term is found as what it finds
    assert dl.is_present("Greater or Equal", vocabulary)
    assert not dl.is_present("Typed Only Here", vocabulary)
    assert not dl.is_present("Save & Run", vocabulary)
    assert dl.is_present("Forever", vocabulary)  # an option's text before its parenthesis
    assert dl.cut_selects(AXTREE) == set()
    many = " | ".join(f"Account: Field {i}" for i in range(dl.OBSERVED_OPTIONS))
    assert dl.cut_selects(f'[e9] combobox "Field 1" [value="--None--", options="{many}"]') == {"Field 1"}


def write_trajectory(run: Path, task_id: str, template: str, axtrees: list[tuple[str, str]]) -> None:
    """A made-up trajectory in the layout a run writes: steps.jsonl and trajectory.json."""
    folder = run / task_id
    folder.mkdir(parents=True)
    steps = [{"index": i, "observation": {"url": url, "title": "", "axtree": tree}, "actions": [{"type": "done"}]}
             for i, (url, tree) in enumerate(axtrees)]
    (folder / "steps.jsonl").write_text("".join(json.dumps(step) + "\n" for step in steps))
    summary = {"task": {"id": task_id, "template": template}}
    (folder / "trajectory.json").write_text(json.dumps({"format": 1, "summary": summary, "steps": steps}))


def test_the_check_lists_an_absent_label_with_its_task_id(tmp_path: Path) -> None:
    memory = CREATE_REPORT.replace("click Save.", "click Save & Run.")
    write_trajectory(tmp_path, "admin_001_001", "create_report", [
        ("https://org/lightning/o/Report/home", AXTREE.replace('"Operator"', '"Start Report"')),
        ("https://org/lightning/o/Report/builder", 'button "New Report"\nheading "Report Type"\nheading "Filters"'),
    ])
    write_trajectory(tmp_path, "sales_001_001", "other", [("https://org/", 'button "App Launcher"')])
    visits = [dl.read_visit(path) for path in dl.task_dirs(tmp_path)]
    report = dl.check_visits(visits, {"admin_001_001": memory, "sales_001_001": ""})
    assert list(report) == ["admin_001_001"]  # a task without a demonstration has nothing to check
    absence = report["admin_001_001"]
    assert absence.labels == ["Save & Run"] and absence.template == "create_report"
    assert absence.urls == ("https://org/lightning/o/Report/home", "https://org/lightning/o/Report/builder")
    message = dl.format_absences(report)
    assert message.startswith('admin_001_001 (create_report) -> "Save & Run" - visited: https://org/lightning/o/')
    assert dl.check_visits(visits, {"admin_001_001": memory}, {dl.words("Save & Run"): "reason"}) == {}


def test_exceptions_have_reasons_and_are_not_labels_our_pages_have() -> None:
    data = json.loads(EXCEPTIONS.read_text(encoding="utf-8"))
    for item in data["phrases"]:
        assert item["phrase"].strip() and len(item["reason"]) > 15, item
    assert len({dl.words(item["phrase"]) for item in data["phrases"]}) == len(data["phrases"])


def test_deviations_name_a_template_a_label_of_its_demonstrations_and_a_reason() -> None:
    """Each known deviation names a release template, a label its demonstrations quote, and why our UI lacks it;
    a deviation hides that label for that template only."""
    data = json.loads(EXCEPTIONS.read_text(encoding="utf-8"))
    for item in data.get("deviations", []):
        assert item["template"] and item["phrase"].strip() and len(item["reason"]) > 15, item
    if (RELEASE / "data" / "test_demo_aug.json").exists():
        records = dl.release_records(RELEASE)
        named = {(r["query_template_name"], dl.words(label)) for r in records
                 for label in dl.demonstration_labels(r["memory"])}
        unknown = [k for k in dl.load_deviations(EXCEPTIONS) if k not in named]
        assert not unknown, f"deviations no demonstration of their template names: {unknown}"
    absence = dl.Absence("admin_008_001", "create_list_view", ["Table", "Save"])
    left, known = dl.split_deviations({"admin_008_001": absence}, {("create_list_view", ("table",)): "no display switch"})
    assert left["admin_008_001"].labels == ["Save"] and known == ['admin_008_001 (create_list_view): "Table" - no display switch']
    assert dl.split_deviations({"x": dl.Absence("x", "create_report", ["Table"])},
                               {("create_list_view", ("table",)): "r"})[0]["x"].labels == ["Table"]


def test_every_exception_is_named_by_a_demonstration() -> None:
    """A phrase no demonstration names any more is a stale exception."""
    require_release(DEMO_AUG)  # skipped without it, a failure when CI is set
    named = {dl.words(label) for record in dl.release_records(RELEASE)
             for label in dl.demonstration_labels(record["memory"])}
    stale = [phrase for phrase in dl.load_exceptions(EXCEPTIONS) if phrase not in named]
    assert not stale, f"exceptions no demonstration names: {stale}"


# --- the real check ---------------------------------------------------------------------------------------------

def chosen_templates(records: list[Mapping[str, Any]]) -> list[str]:
    """The templates to replay: $PYTEST_CUA_LABEL_TEMPLATES (``all`` or a comma list), else :data:`CI_TEMPLATES`;
    ``all`` leaves out the templates whose demonstration names no label (nothing to check)."""
    first = dl.first_task_per_template(records)
    wanted = os.environ.get("PYTEST_CUA_LABEL_TEMPLATES", "").strip()
    if wanted == "all":
        memories = {r["task_id"]: r["memory"] for r in records}
        return sorted(t for t, task_id in first.items() if dl.demonstration_labels(memories[task_id]))
    names = [t.strip() for t in wanted.split(",") if t.strip()] if wanted else list(CI_TEMPLATES)
    unknown = [t for t in names if t not in first]
    assert not unknown, f"templates the release does not have: {unknown}"
    return names


def run_dir_of(path: Path) -> Path:
    """The run folder holding task folders: ``path`` itself, or the newest run under ``path`` or
    ``path/trajectories``."""
    if any(dl.task_dirs(path)):
        return path
    base = path / "trajectories" if (path / "trajectories").is_dir() else path
    runs = sorted((p for p in base.iterdir() if p.is_dir() and any(dl.task_dirs(p))), key=lambda p: p.name)
    assert runs, f"no trajectories under {path}"
    return runs[-1]


def first_visits_per_template(run: Path, records: list[Mapping[str, Any]]) -> list[dl.Visit]:
    """The visit of the first task (by id) of every release template that has a task in the run."""
    templates = {r["task_id"]: r["query_template_name"] for r in records}
    chosen: dict[str, Path] = {}
    for path in dl.task_dirs(run):
        if path.name in templates:
            chosen.setdefault(templates[path.name], path)
    return [dl.read_visit(path) for _, path in sorted(chosen.items())]


def replay(task_ids: list[str], reports: Path) -> Mapping[str, Any]:
    """One inner ``--agent replay`` run of release tasks; its summary.json."""
    cmd = [sys.executable, "-m", "pytest", "suites/scuba", "--scuba-root", str(RELEASE), "-m", "scuba_release",
           "--agent", "replay", "-p", "no:cacheprovider", "--cua-reports", str(reports),
           "-k", " or ".join(task_ids)]
    proc = subprocess.run(cmd, cwd=REPO, text=True, capture_output=True, timeout=RUN_TIMEOUT_S)
    summary = reports / "summary.json"
    assert summary.exists(), f"the inner run wrote no summary.json:\n{(proc.stdout + proc.stderr)[-6000:]}"
    return json.loads(summary.read_text())


@pytest.fixture(scope="module")
def release_records() -> list[Mapping[str, Any]]:
    require_release(DEMO_AUG)  # skipped without it, a failure when CI is set
    return dl.release_records(RELEASE)


@pytest.fixture(scope="module")
def visits(release_records: list[Mapping[str, Any]], tmp_path_factory: pytest.TempPathFactory) -> list[dl.Visit]:
    """The pages of each chosen template's first task: from $PYTEST_CUA_LABEL_TRAJECTORIES, else from one
    replay run (every task of it must pass)."""
    given = os.environ.get("PYTEST_CUA_LABEL_TRAJECTORIES")
    if given:
        return first_visits_per_template(run_dir_of(Path(given)), release_records)
    if not CHROMIUM.exists():
        pytest.skip(f"no Chromium at {CHROMIUM}: the demonstrations cannot be replayed")
    first = dl.first_task_per_template(release_records)
    task_ids = sorted(first[t] for t in chosen_templates(release_records))
    reports = tmp_path_factory.mktemp("demo-labels")
    summary = replay(task_ids, reports)
    outcomes = {t["id"]: t for t in summary["tasks"]}
    not_passed = {i: f"{outcomes[i]['outcome']} {str(outcomes[i].get('error') or '')[:300]}" if i in outcomes
                  else "not run" for i in task_ids if outcomes.get(i, {}).get("outcome") != "passed"}
    assert not not_passed, f"replayed demonstrations that did not pass: {not_passed}"
    return [dl.read_visit(run_dir_of(reports) / i) for i in task_ids]


@pytest.mark.browser
@pytest.mark.slow
def test_every_label_of_a_demonstration_is_on_a_page_it_visits(visits: list[dl.Visit],
                                                               release_records: list[Mapping[str, Any]]) -> None:
    assert visits, "no trajectory of a release task to check"
    memories = {r["task_id"]: r["memory"] for r in release_records}
    deviations = dl.load_deviations(EXCEPTIONS)
    report, known = dl.split_deviations(dl.check_visits(visits, memories, dl.load_exceptions(EXCEPTIONS)),
                                        deviations)
    if known:  # listed with -rP / in the report's captured output: what our UI knowingly lacks
        print("known deviations (" + str(len(known)) + "):\n" + "\n".join(known))
    assert not report, (f"labels of the demonstrations that no visited page shows ({len(report)} of "
                        f"{len(visits)} tasks):\n{dl.format_absences(report)}")
    stale = dl.stale_deviations(visits, deviations)
    assert not stale, f"deviations listed in {EXCEPTIONS.name} that the pages now have: {stale}"


def test_the_templates_to_replay_follow_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    records: list[Mapping[str, Any]] = [
        {"task_id": "admin_001_002", "query_template_name": "create_report", "memory": CREATE_REPORT},
        {"task_id": "admin_001_001", "query_template_name": "create_report", "memory": CREATE_REPORT},
        {"task_id": "admin_006_001", "query_template_name": "create_dashboard", "memory": "## Similar task"},
    ]
    assert dl.first_task_per_template(records) == {"create_report": "admin_001_001", "create_dashboard": "admin_006_001"}
    monkeypatch.setenv("PYTEST_CUA_LABEL_TEMPLATES", "all")
    assert chosen_templates(records) == ["create_report"]  # a demonstration naming no label has nothing to check
    monkeypatch.setenv("PYTEST_CUA_LABEL_TEMPLATES", "create_dashboard, create_report")
    assert chosen_templates(records) == ["create_dashboard", "create_report"]
    monkeypatch.setenv("PYTEST_CUA_LABEL_TEMPLATES", "nope")
    with pytest.raises(AssertionError, match="nope"):
        chosen_templates(records)
