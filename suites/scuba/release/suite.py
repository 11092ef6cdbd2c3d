"""The SCUBA suite (``ScubaSuite``): its own task files, plus SCUBA's release when ``--scuba-root`` is given,
with the org prepared for the release before its snapshot and each release task's rollback scope.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from pytest_cua import Suite, Task, TaskSource

from .deploy import install_custom_objects, install_metadata
from .org_defaults import install_org_defaults
from .prerequisites import METADATA_DIR
from .provision import provision_over_api
from .seed import SEED_DIR, SeedReport, install_seed
from .task_records import load_release, release_file, tasks_to_prepare

if TYPE_CHECKING:
    from pytest_cua import Environment

ROOT_OPTION = "scuba_root"  # dest of --scuba-root (registered in suites/scuba/conftest.py)

# Names in SCUBA's ``objects`` / ``metadata_types`` lists that are not object names of the org's schema.
OBJECT_ALIASES: dict[str, tuple[str, ...]] = {
    "Queue": ("Group", "GroupMember", "QueueSobject"),
    "Knowledge__ka": ("Knowledge__kav",),
    "CustomObject": ("EntityDefinition",),
    "StandardValueSet": (),
    "Report": (),
}


def release_root(config: Any) -> Path | None:
    """The ``--scuba-root`` checkout, or None (also when the option is not registered)."""
    try:
        value = config.getoption(ROOT_OPTION)
    except (ValueError, AttributeError):
        return None
    return Path(value).expanduser().resolve() if value else None


def demos_wanted(config: Any) -> bool:
    try:
        return bool(config.getoption("cua_demos"))
    except (ValueError, AttributeError):
        return False


def scope_names(names: Iterable[str], known: Iterable[str]) -> tuple[str, ...]:
    """SCUBA's object and metadata type names as object names of the org's schema (aliases resolved,
    unknown names dropped), sorted."""
    known_set = set(known)
    out: set[str] = set()
    for name in names:
        for candidate in OBJECT_ALIASES.get(name, (name,)):
            if candidate in known_set:
                out.add(candidate)
    return tuple(sorted(out))


def _schema_objects() -> tuple[str, ...]:
    from pytest_cua.orgs.localorg.schema import default_repo_fixtures

    return tuple(sorted(p.stem for p in (default_repo_fixtures() / "schema").glob("*.json")))


class ScubaSuite(Suite):
    """The SCUBA suite: its own task files, plus SCUBA's release when ``--scuba-root`` is given."""

    # a task's subcategory (SCUBA's, as in its release records); a QA task's evidence (templates/sales_qa.py)
    task_fields = ("subcategory", "evidence")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.seed_reports: list[SeedReport] = []
        self._known_objects: tuple[str, ...] | None = None

    def task_sources(self, config: Any) -> list[TaskSource]:
        sources = super().task_sources(config)
        root = release_root(config)
        if root is not None:
            demos = demos_wanted(config)
            path = release_file(root, demos=demos)
            shown = str(path)
            sources.append(TaskSource(f"scuba-release:{path.name}",
                                      lambda: load_release(path, demos=demos, suite=self.name, shown=shown)))
        return sources

    def prepare(self, env: "Environment", config: Any) -> None:
        """With ``--scuba-root`` only, before the org's snapshot, as SCUBA prepares its org: the release's
        metadata prerequisites deployed over the org's Metadata API (``install_metadata``), then its seed
        records, the Developer Edition defaults and empty custom objects for any the tasks name without files.
        The seed records need the org's store (an org served by this process)."""
        import time

        root = release_root(config)
        api_client = getattr(getattr(env, "handle", None), "client", None)  # an org over its APIs only
        if api_client is not None:
            self.seed_reports.append(provision_over_api(env, api_client, root, demos_wanted(config), self.name))
            return
        if root is None:
            return
        store = getattr(env, "store", None)
        if store is None:
            from pytest_cua import ProvisioningError

            raise ProvisioningError(f"suite {self.name!r}: the environment {env.name!r} has no org store for "
                                    f"SCUBA's seed records (the release needs an org served by this process: "
                                    f"--cua-org local)")
        started = time.monotonic()
        report = SeedReport()
        tasks = tasks_to_prepare(root, demos=demos_wanted(config), suite=self.name)
        metadata = root / METADATA_DIR
        if metadata.is_dir():
            install_metadata(env.org, metadata, report, tasks)  # type: ignore[attr-defined]
        else:
            report.notes.append(f"metadata prerequisites: {metadata} is no folder: nothing deployed")
        install_seed(store, root / SEED_DIR, report)
        install_org_defaults(store, report)
        install_custom_objects(store, tasks, report)
        report.seconds = time.monotonic() - started
        self.seed_reports.append(report)

    def rollback_scope(self, task: Task) -> tuple[str, ...] | None:
        """The template's ``objects``; for a release task whose template declares none, the record's
        ``objects`` and ``metadata_types`` as schema object names; None (everything) when neither says."""
        declared = super().rollback_scope(task)
        if declared:
            return declared
        if not task.extra.get("release"):
            return None
        if self._known_objects is None:
            self._known_objects = _schema_objects()
        names = list(task.extra.get("objects") or []) + list(task.extra.get("metadata_types") or [])
        return scope_names(names, self._known_objects) or None
