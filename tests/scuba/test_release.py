"""The SCUBA release importer: a small SCUBA-format release of our own (tests/scuba/fixtures/release, a fake
checkout) collected through ``--scuba-root``: ids, markers, ``--demos`` text, seed install, a bad record as a
collection error naming the task and field, a task without an evaluator skipped with the reason."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from pytest_cua.orgs.localorg.seed import SeedError, seeded_org  # noqa: E402
from pytest_cua.tasks.task import TaskFileError  # noqa: E402
from suites.scuba import release  # noqa: E402

_spec = importlib.util.spec_from_file_location("scuba_suite_copy", Path(__file__).parent / "fixtures" / "suite_copy.py")
assert _spec is not None and _spec.loader is not None
suite_copy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(suite_copy)

FIXTURE = suite_copy.RELEASE_FIXTURE
SEED = FIXTURE / release.SEED_DIR
IDS = ["admin_903_001", "sales_901_001", "sales_904_001", "service_902_001"]


def run_pytest(args: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """An inner pytest in a subprocess (the org and Chromium of a run stay out of this process)."""
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args]
    return subprocess.run(cmd, cwd=cwd, text=True, capture_output=True, timeout=timeout)


_PROBE_COPY: list[Path] = []


@pytest.fixture(scope="module", autouse=True)
def _probe_copy(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A copy of the suite with the probe templates the release fixture's tasks name, once for the module."""
    base = tmp_path_factory.mktemp("scuba-probes")
    suite_copy.copy_suite(base)
    _PROBE_COPY[:] = [base]
    yield
    _PROBE_COPY.clear()


def probe_copy() -> Path:
    return _PROBE_COPY[0]


def collect(*args: str, root: Path = FIXTURE) -> subprocess.CompletedProcess[str]:
    """Collect the suite (a copy with the probe templates the fixture's tasks use) with ``root`` as the release."""
    return run_pytest(["suites/scuba", "--scuba-root", str(root), "--collect-only", "-q", *args], cwd=probe_copy())


def collected_ids(out: str) -> list[str]:
    # a copy's ids start wherever pytest puts its root folder: read the id after the test's name
    return sorted(m.group(1) for m in (re.match(r"\S*test_scuba\.py::test_task\[(.*)\]$", line)
                                       for line in out.splitlines()) if m)


# --- records -> tasks ------------------------------------------------------------------------------------

def test_zero_shot_records_become_tasks() -> None:
    tasks = release.load_release(FIXTURE / release.ZERO_SHOT_FILE, demos=False)
    assert sorted(t.id for t in tasks) == IDS
    task = {t.id: t for t in tasks}["sales_901_001"]
    assert task.persona == "sales" and task.difficulty == "easy" and task.template == "probe_seed"
    assert task.instruction.startswith("Check that Quillfeather Books is an account")
    assert task.ground_truth["account_name"] == "Quillfeather Books"
    assert task.demonstration_text is None
    assert task.extra["release"] is True and task.extra["objects"] == ["Account", "Opportunity", "Task"]
    assert task.extra["subcategory"] == "Probe" and task.extra["template_id"] == "sales_901"
    question = {t.id: t for t in tasks}["admin_903_001"]
    assert question.is_question


def test_demos_give_scubas_prompt_with_the_memory_once() -> None:
    records = json.loads((FIXTURE / release.DEMO_AUG_FILE).read_text())
    tasks = {t.id: t for t in release.load_release(FIXTURE / release.DEMO_AUG_FILE, demos=True)}
    for record in records:
        task = tasks[record["task_id"]]
        # the demonstration-augmented query already embeds the memory: it is not handed over a second time
        assert task.instruction == record["query"] and task.demonstration_text is None
        assert task.extra["memory"] == record["memory"]


def test_demos_need_the_memory_field(tmp_path: Path) -> None:
    records = json.loads((FIXTURE / release.ZERO_SHOT_FILE).read_text())
    path = tmp_path / "test_demo_aug.json"
    path.write_text(json.dumps(records))
    with pytest.raises(TaskFileError) as info:
        release.load_release(path, demos=True)
    assert info.value.task_id == "sales_901_001" and info.value.field_name == "memory"


@pytest.mark.parametrize("key, value, field_name", [
    ("difficulty", "impossible", "difficulty"),
    ("category", "marketing", "category"),
    ("query", "", "query"),
    ("query_template_name", None, "query_template_name"),
    ("ground_truth_dict", ["not", "an", "object"], "ground_truth_dict"),
    ("query_template_metadata", {"objects": "Account"}, "query_template_metadata.objects"),
])
def test_a_record_that_does_not_fit_names_the_task_and_field(tmp_path: Path, key: str, value: Any,
                                                             field_name: str) -> None:
    records = json.loads((FIXTURE / release.ZERO_SHOT_FILE).read_text())
    records[2][key] = value
    path = tmp_path / "test_zero_shot.json"
    path.write_text(json.dumps(records))
    with pytest.raises(TaskFileError) as info:
        release.load_release(path, demos=False)
    assert info.value.task_id == records[2]["task_id"]
    assert info.value.field_name == field_name
    assert f"task {records[2]['task_id']!r}" in str(info.value) and f"field {field_name!r}" in str(info.value)


def test_a_record_without_task_id_is_named_by_its_index(tmp_path: Path) -> None:
    path = tmp_path / "test_zero_shot.json"
    path.write_text(json.dumps([{"query": "x"}]))
    with pytest.raises(TaskFileError) as info:
        release.load_release(path, demos=False)
    assert info.value.task_id == "#0" and info.value.field_name == "task_id"


def test_a_missing_release_file_says_what_root_is_expected(tmp_path: Path) -> None:
    with pytest.raises(TaskFileError, match="--scuba-root"):
        release.load_release(tmp_path / release.ZERO_SHOT_FILE, demos=False)


# --- rollback scope of release tasks -----------------------------------------------------------------------

def test_release_scope_falls_back_to_the_records_objects() -> None:
    suite = release.ScubaSuite("scuba", environment="salesforce", templates={})
    tasks = {t.id: t for t in release.load_release(FIXTURE / release.ZERO_SHOT_FILE, demos=False)}
    assert suite.rollback_scope(tasks["sales_901_001"]) == ("Account", "Opportunity", "Task")
    assert release.scope_names(["Queue", "Knowledge__ka", "CustomObject", "Report", "Nope"],
                               ["Group", "GroupMember", "QueueSobject", "Knowledge__kav", "EntityDefinition"]) == \
        ("EntityDefinition", "Group", "GroupMember", "Knowledge__kav", "QueueSobject")


def test_a_declared_template_scope_wins() -> None:
    from pytest_cua.tasks.suite import Template

    class Declared(Template):
        name = "probe_seed"
        objects = ("Lead",)

    suite = release.ScubaSuite("scuba", environment="salesforce", templates={"probe_seed": Declared()})
    task = {t.id: t for t in release.load_release(FIXTURE / release.ZERO_SHOT_FILE, demos=False)}["sales_901_001"]
    assert suite.rollback_scope(task) == ("Lead",)


# --- seed records ------------------------------------------------------------------------------------------

def test_seed_records_are_adapted_and_installed() -> None:
    org = seeded_org()
    report = release.install_seed(org, SEED)
    assert report.installed == {"Account": 2, "Contact": 2, "Opportunity": 1, "PricebookEntry": 2, "Product2": 2,
                                "Task": 1, "User": 1}
    contact = org.query("SELECT Account.Name FROM Contact WHERE LastName = 'Brandvold'")["records"][0]
    assert contact["Account"]["Name"] == "Quillfeather Books"  # a reference given by name
    task = org.query("SELECT What.Name FROM Task WHERE Subject = 'Send refit proposal'")["records"][0]
    assert task["What"]["Name"] == "Tidewell Ferries Fleet Refit"  # a combined file, ids of the exporting org
    entries = org.query("SELECT Product2.Name, Pricebook2.Name, UnitPrice FROM PricebookEntry "
                        "WHERE Product2.Name IN ('Glaze Kit', 'Kiln Timer') ORDER BY UnitPrice")["records"]
    assert [(e["Product2"]["Name"], e["Pricebook2"]["Name"], e["UnitPrice"]) for e in entries] == \
        [("Kiln Timer", "Standard Price Book", 19), ("Glaze Kit", "Standard Price Book", 48)]
    user = org.find("User", Alias="cmere")[0]
    assert user["IsActive"] is True
    notes = "\n".join(report.notes)
    assert "Widget__x" in notes and "Contact.CurrencyIsoCode left out" in notes
    assert "Task.IsClosed left out (read-only)" in notes


def test_a_seed_record_that_does_not_fit_names_object_record_and_field(tmp_path: Path) -> None:
    checkout = suite_copy.copy_release(tmp_path)
    seed = checkout / release.SEED_DIR
    (seed / "Account.json").write_text(json.dumps([{"Name": "Fine Account"}, {"Industry": "Retail"}]))
    org = seeded_org()
    snap = org.snapshot()
    with pytest.raises(SeedError) as info:
        release.install_seed(org, seed)
    assert info.value.sobject == "Account" and info.value.index == 1 and info.value.field == "Name"
    assert org.residue(snap) == []  # all or nothing


def test_prepare_installs_the_seed_only_with_a_root() -> None:
    suite = release.ScubaSuite("scuba", environment="salesforce", templates={})
    org = seeded_org()
    before = org.counts()
    env = SimpleNamespace(name="salesforce", store=org)
    suite.prepare(env, SimpleNamespace(getoption=lambda name: None))  # type: ignore[arg-type]
    assert org.counts() == before
    options = {"scuba_root": str(FIXTURE), "cua_demos": False}
    suite.prepare(env, SimpleNamespace(getoption=options.__getitem__))  # type: ignore[arg-type]
    assert org.counts()["Account"] == before["Account"] + 2
    assert suite.seed_reports and suite.seed_reports[0].installed["Account"] == 2


def test_custom_objects_of_the_metadata_prerequisites_get_sharing_settings() -> None:
    org = seeded_org()
    tasks = release.load_release(FIXTURE / release.ZERO_SHOT_FILE, demos=False)
    assert release.install_custom_objects(org, tasks) == ["Ferry__c"]
    (entity,) = org.find("EntityDefinition", QualifiedApiName="Ferry__c")
    assert entity["InternalSharingModel"] == "ReadWrite" and entity["ExternalSharingModel"] == "Private"
    assert release.install_custom_objects(org, tasks) == []  # already there


def test_developer_edition_defaults_are_added_once() -> None:
    org = seeded_org()
    added = release.install_org_defaults(org)
    assert "role CEO" in added and "user Security User" in added
    role = org.query("SELECT ParentRole.Name FROM UserRole WHERE Name = 'Customer Support, North America'")
    assert role["records"][0]["ParentRole"]["Name"] == "SVP, Customer Service & Support"
    assert release.install_org_defaults(org) == []


def test_the_object_settings_of_scubas_admin_questions_are_added_once() -> None:
    """What qa_admin_039's ground truths rest on: the permission set "Account Access" may not delete accounts,
    the group "Product Admin" may (through its permission set), the profile "Analytics Cloud Integration User"
    only reads opportunities; a second install adds nothing, and settings the org already has stay."""
    from pytest_cua.orgs.localorg.metadata import MetadataStore

    org = seeded_org()
    added = release.install_object_settings(org)
    assert "permission set Account Access" in added and "permission set group Product Admin" in added
    assert "Opportunity of Analytics Cloud Integration User" in added
    store = MetadataStore(org)

    def allowed(kind: str, name: str, obj: str) -> set[str]:
        body = store.read(kind, name)
        entry = next(p for p in (body.iter("objectPermissions") if body is not None else [])
                     if p.findtext("object") == obj)
        return {c.tag for c in entry if c.text == "true"}
    assert allowed("PermissionSet", "Account_Access", "Account") == {"allowRead", "allowCreate", "allowEdit"}
    assert "allowDelete" in allowed("PermissionSet", "Product_Admin_Access", "Account")
    assert [p.text for p in store.read("PermissionSetGroup", "Product_Admin").iter("permissionSets")] == \
        ["Product_Admin_Access"]
    assert allowed("Profile", "Analytics Cloud Integration User", "Opportunity") == {"allowRead"}
    assert release.install_object_settings(org) == []


def test_the_sample_release_seed_installs() -> None:
    """SCUBA's own prerequisites (when this machine has the reference copy) install without an error."""
    from .release_root import require_shared  # SCUBA's shared folder: skipped without it, a failure under CI

    sample = require_shared("prerequisites") / "prerequisites"
    report = release.install_seed(seeded_org(), sample)
    assert sum(report.installed.values()) > 100


# --- collection through --scuba-root ---------------------------------------------------------------------

def test_scuba_root_collects_the_release_with_ids_and_markers() -> None:
    result = collect("-m", "scuba_release")
    assert result.returncode == 0, result.stdout + result.stderr
    assert collected_ids(result.stdout) == IDS
    header = run_pytest(["suites/scuba", "--scuba-root", str(FIXTURE), "--collect-only", "-m", "scuba_release"],
                        cwd=probe_copy())
    assert "scuba release:" in header.stdout and "test_zero_shot.json" in header.stdout
    for expr, expected in [("sales and easy", ["sales_901_001"]), ("service and medium", ["service_902_001"]),
                           ("template_probe_revenue or (admin and hard and question)",
                            ["admin_903_001", "sales_904_001"])]:
        found = collect("-m", f"scuba_release and ({expr})")
        assert collected_ids(found.stdout) == expected, (expr, found.stdout)


def test_without_scuba_root_no_release_task_is_collected() -> None:
    result = run_pytest(["suites/scuba", "--collect-only", "-q", "-m", "scuba_release"], cwd=REPO)
    assert collected_ids(result.stdout) == []


def test_demos_read_the_demonstration_augmented_file() -> None:
    result = collect("-m", "scuba_release", "--demos")
    assert result.returncode == 0, result.stdout + result.stderr
    assert collected_ids(result.stdout) == IDS
    header = run_pytest(["suites/scuba", "--scuba-root", str(FIXTURE), "--collect-only", "--demos", "-m", "x"],
                        cwd=REPO)
    assert "test_demo_aug.json" in header.stdout


def test_a_bad_record_is_a_collection_error_and_own_tasks_still_collect(tmp_path: Path) -> None:
    checkout = suite_copy.copy_release(tmp_path)
    path = checkout / release.ZERO_SHOT_FILE
    records = json.loads(path.read_text())
    records[1]["difficulty"] = "impossible"
    path.write_text(json.dumps(records))
    result = collect(root=checkout)
    out = result.stdout + result.stderr
    assert result.returncode == 2, out
    assert "scuba-release:test_zero_shot.json" in out
    assert "task 'service_902_001'" in out and "field 'difficulty'" in out
    assert collected_ids(result.stdout) == collected_ids(run_pytest(
        ["suites/scuba", "--collect-only", "-q"], cwd=REPO).stdout)  # the own tasks, all of them


def test_a_record_naming_no_template_is_a_collection_error_of_its_file(tmp_path: Path) -> None:
    """A release record whose template the suite does not have (a misspelt name) is not skipped at run time:
    collecting the release file fails, naming the file, the task, the field and the template it meant."""
    checkout = suite_copy.copy_release(tmp_path)
    path = checkout / release.ZERO_SHOT_FILE
    records = json.loads(path.read_text())
    (record,) = [r for r in records if r["task_id"] == "sales_904_001"]
    record["query_template_name"] = "create_leed"
    path.write_text(json.dumps(records))
    result = run_pytest(["suites/scuba", "--scuba-root", str(checkout), "--agent", "noop", "-k", "sales_904_001",
                         "--cua-reports", str(tmp_path / "reports")], cwd=probe_copy())
    out = result.stdout + result.stderr
    assert result.returncode == 2, out
    assert "scuba-release:test_zero_shot.json" in out
    assert "task 'sales_904_001': field 'template': unknown template of suite 'scuba': 'create_leed' (did you " \
           "mean 'create_lead'?" in out, out
    assert not (tmp_path / "reports" / "summary.json").exists()  # nothing ran


def test_a_release_record_missing_a_ground_truth_key_is_a_collection_error(tmp_path: Path) -> None:
    checkout = suite_copy.copy_release(tmp_path)
    path = checkout / release.ZERO_SHOT_FILE
    records = json.loads(path.read_text())
    (record,) = [r for r in records if r["task_id"] == "sales_904_001"]
    record["query_template_name"] = "create_lead"
    record["ground_truth_dict"] = {"lead_name": "Ada Lovelace", "company_name": "Analytical Engines",
                                  "lead_source": "Web", "ratng": "Hot"}
    path.write_text(json.dumps(records))
    result = collect(root=checkout)
    out = result.stdout + result.stderr
    assert result.returncode == 2, out
    assert "task 'sales_904_001': field 'ground_truth.ratng': unknown ground_truth key of template " \
           "'create_lead': 'ratng' (did you mean 'rating'?" in out, out


@pytest.mark.browser
def test_release_seed_is_in_the_org_the_tasks_run_on(tmp_path: Path) -> None:
    """End to end: a copy of the suite with a probe template that reads the release's seed records through
    the API, run with --scuba-root and --agent oracle on the embedded org."""
    suite_copy.copy_suite(tmp_path)
    reports = tmp_path / "reports"
    result = run_pytest(["suites/scuba", "--scuba-root", str(FIXTURE), "-k", "sales_901_001 or admin_903_001",
                         "--agent", "oracle", "--cua-reports", str(reports)], cwd=tmp_path)
    out = result.stdout + result.stderr
    assert result.returncode == 0, out
    tasks = suite_copy.by_id(suite_copy.read_summary(reports))
    assert tasks["sales_901_001"]["outcome"] == "passed", tasks["sales_901_001"]
    assert tasks["sales_901_001"]["score"] == 1.0
    # a release question whose qa_* template has no module here is scored by SCUBA's answer rule
    assert tasks["admin_903_001"]["outcome"] == "passed", tasks["admin_903_001"]
    assert tasks["admin_903_001"]["milestones"][0]["name"] == "answer"
