"""The release's metadata prerequisites installed into an org, all or nothing, as SCUBA deploys them before its
tasks: through the org's Metadata API over SOAP with the environment's API session (``install_metadata``,
``deploy_over_api``), so the custom objects (MyAnimal__c, ...) become sObjects, the queues Group records, the
approval processes, duplicate and matching rules, flow, layout, tab, settings and the Admin profile components;
and the empty custom objects the tasks name without files (``install_custom_objects``, in process). A component
the org refuses is a ``PrerequisiteError`` naming the source file, the component and the problem.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from .prerequisites import PrerequisiteError, PrerequisitePackage, custom_objects, prerequisite_package, wanted_members
from .seed import SeedReport

if TYPE_CHECKING:
    from pytest_cua import Task
    from pytest_cua.orgs.localorg.store import Org


def _deploy_failures(pkg: PrerequisitePackage, failures: Iterable[tuple[str, str, str]]) -> PrerequisiteError:
    """One error naming every component the org refused, (package file, component, problem), by its source
    files; ``path`` and ``component`` are those of the first."""
    named = [(pkg.sources.get(f.removeprefix("unpackaged/"), f), c, p) for f, c, p in failures]
    if not named:
        return PrerequisiteError(str(pkg.directory), "", "the deploy failed without naming a component")
    lines = "\n  ".join(f"{source}: {component}: {problem}" for source, component, problem in named)
    err = PrerequisiteError(str(pkg.directory), "", f"the org refused {len(named)} metadata prerequisites:\n  "
                                                    f"{lines}")
    err.path, err.component = named[0][0], named[0][1]
    return err


def deploy_over_api(sf: Any, pkg: PrerequisitePackage, *, timeout: float = 120.0) -> int:
    """Deploy ``pkg`` through the Metadata API's SOAP endpoint with the client's session (``env.org``), all or
    nothing; returns the number of components deployed. A refused component raises ``PrerequisiteError``
    naming the source file, the component and Salesforce's problem."""
    import base64
    import time

    from pytest_cua.orgs import mdapi as md

    data = base64.b64encode(pkg.zip_bytes()).decode("ascii")
    try:
        started = md.call(sf, "deploy", f"<ZipFile>{data}</ZipFile><DeployOptions><rollbackOnError>true"
                                        "</rollbackOnError><singlePackage>true</singlePackage></DeployOptions>")
        job = started.findtext("result/id") or ""
        deadline = time.monotonic() + timeout
        while True:
            status = md.call(sf, "checkDeployStatus", f"<asyncProcessId>{job}</asyncProcessId>"
                                                      "<includeDetails>true</includeDetails>")
            result = status.find("result")
            if result is not None and result.findtext("done") == "true":
                break
            if time.monotonic() > deadline:
                raise PrerequisiteError(str(pkg.directory), "", f"the deploy {job} did not finish in {timeout:.0f} s")
            time.sleep(0.5)
    except md.MetadataCallError as exc:
        raise PrerequisiteError(str(pkg.directory), "", f"the Metadata API refused the deploy: {exc}") from None
    if result.findtext("success") != "true":
        failures = [(f.findtext("fileName") or "", f.findtext("fullName") or "", f.findtext("problem") or "")
                    for f in result.iter("componentFailures")]
        raise _deploy_failures(pkg, failures)
    return int(result.findtext("numberComponentsDeployed") or 0)


def install_metadata(sf: Any, directory: str | Path, report: SeedReport | None = None,
                     tasks: Iterable[Task] | None = None) -> PrerequisitePackage:
    """Deploy the metadata prerequisites folder of a SCUBA checkout (``scuba/prerequisites/metadata``) into the
    org of the API client ``sf`` (simple-salesforce) over its Metadata API, as SCUBA deploys them before its
    tasks: custom objects become sObjects, queues Group records, and so on. Reports the org already holds as
    records (the seed's Report records come from the same files) are left out with a note. With ``tasks``, only
    what their prerequisites name (``wanted_members``); without, every file of the folder."""
    from simple_salesforce.exceptions import SalesforceError

    try:
        have = {str(r.get("DeveloperName")) for r in sf.query_all("SELECT DeveloperName FROM Report")["records"]}
    except SalesforceError:  # an org without the Report object: every report file is deployed
        have = set()
    wanted = wanted_members(tasks) if tasks is not None else None
    pkg = prerequisite_package(directory, wanted=wanted, skip_reports=have)
    deployed = deploy_over_api(sf, pkg)
    if report is not None:
        for type_name, members in pkg.types.items():
            key = f"Metadata {type_name}"
            report.installed[key] = report.installed.get(key, 0) + len(members)
        report.notes += pkg.notes
        report.notes.append(f"metadata prerequisites: {pkg.component_count()} components deployed "
                            f"({deployed} with their child components) from {directory}")
    return pkg


def custom_objects_package(tasks: Iterable[Task], have: Callable[[str], bool]) -> PrerequisitePackage:
    """The empty custom objects (a real sObject with its Name field; Salesforce's defaults for a new custom
    object: internal ReadWrite, external Private) of those the release's metadata prerequisites name that
    ``have`` says the org lacks."""
    from pytest_cua.orgs.localorg.metadata import xmltree as X

    wanted = sorted({m for t in tasks if t.extra.get("release") for m in custom_objects(t)})
    pkg = PrerequisitePackage(Path("release task prerequisites"))
    for name in [m for m in wanted if not have(m) and m.endswith("__c")]:
        label = name.removesuffix("__c").replace("_", " ")
        body = X.element("CustomObject", [
            X.leaf("deploymentStatus", "Deployed"), X.leaf("externalSharingModel", "Private"), X.leaf("label", label),
            X.element("nameField", [X.leaf("label", f"{label} Name"), X.leaf("type", "Text")]),
            X.leaf("pluralLabel", f"{label}s"), X.leaf("sharingModel", "ReadWrite")])
        pkg.add("CustomObject", name, f"objects/{name}.object", body, f"CustomObject {name} of the task records")
    return pkg


def install_custom_objects(org: "Org", tasks: Iterable[Task], report: SeedReport | None = None) -> list[str]:
    """Each custom object the release's metadata prerequisites name that ``org`` still lacks (a checkout without
    the object's files), deployed in process as an empty custom object (``custom_objects_package``). Returns
    the names."""
    from pytest_cua.orgs.localorg.metadata import MetadataStore
    from pytest_cua.orgs.localorg.metadata.packages import DeployOptions, deploy

    pkg = custom_objects_package(tasks, lambda m: org.schema.get(m) is not None)
    new = sorted(pkg.types.get("CustomObject", []))
    if not new:
        return []
    outcome = deploy(MetadataStore(org), pkg.zip_bytes(), DeployOptions())
    if not outcome.success:
        raise _deploy_failures(pkg, [(m.file_name, m.full_name, m.problem) for m in outcome.messages
                                     if not m.success])
    if report is not None:
        report.installed["Metadata CustomObject"] = report.installed.get("Metadata CustomObject", 0) + len(new)
        report.notes.append(f"custom objects the tasks name without files in the metadata prerequisites, deployed "
                            f"empty (no fields): {', '.join(new)}")
    return new
