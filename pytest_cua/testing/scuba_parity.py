"""SCUBA's own evaluation, unchanged, against an org, through the real Salesforce CLI: the parity harness.

SCUBA scores a task with ``MilestoneEvaluator(org_alias).evaluate_instance(record, agent_answer)``
(``scuba/phases/evaluation/master_evaluator.py`` of a SCUBA checkout). Its data retrieval shells out to
``sf data query ... --result-format csv -o USERNAME`` (``scuba/helpers/salesforce_commands.py``), reads Tooling
endpoints with a client-credentials token, and reads ``orgs/orgs_info.json`` and ``scuba/...`` relative to the
working directory. ``ScubaEvaluation`` gives it all that without copying a line of it::

    with ScubaEvaluation(scuba_root, creds, workdir=tmp_path / "scuba-eval") as scuba:
        result = scuba.evaluate(record)          # one release record (a dict of data/test_zero_shot.json)
        result.score, result.milestones          # SCUBA's ScoreCard: score (2 decimals, -1 when it raised), rubric

- ``workdir`` gets ``scuba`` (a link to the checkout's ``scuba/`` folder), ``orgs/orgs_info.json`` (mode 0600:
  instance URL, client id and secret, username under the alias) and ``orgs/modified_state/<alias>`` (an sf
  project with ``manifest/``, where SCUBA's metadata retrieval writes ``package.xml`` and retrieves into).
- One worker process (``python -m pytest_cua.testing.scuba_parity --worker``) runs in ``workdir`` with the
  checkout on ``sys.path``, the CLI first on ``PATH`` and a private CLI state folder (``SfCli``), the org's CA in
  ``REQUESTS_CA_BUNDLE`` and ``NODE_EXTRA_CA_CERTS``. It logs in with SCUBA's own
  ``authorize_using_access_token`` and then evaluates one record per request (JSON lines on its stdin/stdout;
  SCUBA's prints go to ``workdir/worker.log``). Records are evaluated one at a time, against the org as it is.
- The CLI retrieves into the project's ``retrieved/`` folder, emptied before each record; SCUBA reads it through
  ``force-app/main/default``, links that give SCUBA's folder names, two of which differ from the CLI's in letter
  case only, the CLI's folders (``folder_view``), as a case-insensitive file system would.
- A record whose evaluation raised inside SCUBA is a result with score -1 and SCUBA's traceback lines in
  ``failures`` (that is SCUBA's own rule); a worker that dies or does not answer in ``timeout`` seconds is a
  ``ScubaParityError`` naming the task and the log.

Secrets (client secret, tokens) are only in ``orgs_info.json`` and the worker's environment, never in argv,
results or errors.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import shutil
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Mapping

from pytest_cua.testing.sfcli import SfCli

MASTER = Path("scuba") / "phases" / "evaluation" / "master_evaluator.py"
RETRIEVED = "retrieved"  # the CLI's package folder; SCUBA reads it through force-app/main/default
DEFAULT_ALIAS = "embedded"
PACKAGE_ROOT = Path(__file__).resolve().parents[2]


class ScubaParityError(RuntimeError):
    """The harness could not evaluate (a bad checkout, the worker died or timed out)."""


@dataclass
class ScubaResult:
    """SCUBA's score card of one record: ``score`` as SCUBA rounds it, its rubric and its failure lines."""

    task_id: str
    score: float
    milestones: list[dict[str, Any]] = field(default_factory=list)
    failures: list[str] | None = None
    seconds: float = 0.0

    def table(self) -> str:
        """The rubric as lines ``[x] 0.50 milestone``."""
        lines = [f"SCUBA {self.task_id}: score {self.score:.2f} ({self.seconds:.1f} s)"]
        for m in self.milestones:
            name = m.get("milestone", m.get("Milestone", "?"))
            mark = "x" if m.get("is_success") else " "
            lines.append(f"  [{mark}] {_weight(m.get('weight')):.2f} {name}")
        if self.failures:
            lines.append("  system failure: " + (self.failures[-1] if self.failures else ""))
        return "\n".join(lines)


def _weight(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


class ScubaEvaluation:
    """A worker running SCUBA's ``MilestoneEvaluator`` from ``scuba_root`` against the org of ``creds``."""

    def __init__(self, scuba_root: str | Path, creds: Any, *, workdir: str | Path, alias: str = DEFAULT_ALIAS,
                 timeout: float = 600.0, python: str | None = None) -> None:
        self.root = Path(scuba_root).resolve()
        if not (self.root / MASTER).is_file():
            raise ScubaParityError(f"--scuba-root {scuba_root}: no {MASTER} there (not a SCUBA checkout)")
        self.creds = creds
        self.workdir = Path(workdir)
        self.alias = alias
        self.timeout = timeout
        self.python = python or sys.executable
        self.cli = SfCli(self.workdir / "sf-home", creds.ca_path)
        self._proc: subprocess.Popen[str] | None = None
        self._log: IO[str] | None = None

    @property
    def log_path(self) -> Path:
        return self.workdir / "worker.log"

    def _layout(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        link = self.workdir / "scuba"
        if not link.exists():
            link.symlink_to(self.root / "scuba", target_is_directory=True)
        orgs = self.workdir / "orgs"
        orgs.mkdir(exist_ok=True)
        info = {self.alias: {"instance": self.creds.instance_url, "client_key": self.creds.client_id,
                             "client_secret": self.creds.client_secret, "username": self.creds.username}}
        path = orgs / "orgs_info.json"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(info, fh)
        project = orgs / "modified_state" / self.alias
        if not (project / "sfdx-project.json").is_file():
            project.parent.mkdir(parents=True, exist_ok=True)
            # as SCUBA's create_project_if_not_exists makes it: sf project generate, then manifest/
            self.cli.run("project", "generate", "--name", self.alias, "--output-dir", str(project.parent))
        (project / "manifest").mkdir(parents=True, exist_ok=True)
        config = json.loads((project / "sfdx-project.json").read_text(encoding="utf-8"))
        config["packageDirectories"] = [{"path": RETRIEVED, "default": True}]
        (project / "sfdx-project.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
        shutil.rmtree(project / "force-app", ignore_errors=True)

    def start(self) -> "ScubaEvaluation":
        """Lay out the working folder, start the worker and wait until SCUBA has logged the CLI in."""
        if self._proc is not None:
            return self
        self._layout()
        env = self.cli.environment({
            "PYTHONPATH": os.pathsep.join([str(self.root), str(PACKAGE_ROOT)]),
            "REQUESTS_CA_BUNDLE": str(self.creds.ca_path),
            "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
            "PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1",
        })
        for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "CURL_CA_BUNDLE"):
            env.pop(name, None)
        self._log = open(self.log_path, "a", encoding="utf-8")
        self._proc = subprocess.Popen([self.python, "-m", "pytest_cua.testing.scuba_parity", "--worker",
                                       "--alias", self.alias], cwd=self.workdir, env=env, text=True,
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log)
        ready = self._read("(start-up and SCUBA's login)")
        if not ready.get("ready"):
            self.close()
            raise ScubaParityError(f"SCUBA's evaluator did not start: {ready.get('error', ready)} "
                                   f"(log: {self.log_path})")
        return self

    def _read(self, what: str) -> dict[str, Any]:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        deadline = time.monotonic() + self.timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self.close()
                raise ScubaParityError(f"SCUBA's evaluator gave no answer within {self.timeout:.0f} s for {what} "
                                       f"(log: {self.log_path})")
            ready, _, _ = select.select([proc.stdout], [], [], min(left, 1.0))
            if ready:
                line = proc.stdout.readline()
                if not line:
                    code = proc.wait(timeout=10)
                    self._proc = None
                    raise ScubaParityError(f"SCUBA's evaluator exited (code {code}) during {what} "
                                           f"(log: {self.log_path})")
                return dict(json.loads(line))

    def evaluate(self, record: Mapping[str, Any], answer: str | None = None) -> ScubaResult:
        """SCUBA's score card of ``record`` (a release record) against the org as it is now."""
        if self._proc is None:
            self.start()
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        task_id = str(record.get("task_id", "?"))
        started = time.monotonic()
        proc.stdin.write(json.dumps({"instance": dict(record), "answer": answer}) + "\n")
        proc.stdin.flush()
        out = self._read(f"task {task_id}")
        if "error" in out:
            raise ScubaParityError(f"SCUBA's evaluator failed on task {task_id} outside its own error handling: "
                                   f"{out['error']}")
        return ScubaResult(task_id, float(out["score"]), list(out.get("milestones") or []), out.get("failures"),
                           time.monotonic() - started)

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            try:
                if proc.stdin is not None:
                    proc.stdin.close()
                proc.wait(timeout=20)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait(timeout=10)
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> "ScubaEvaluation":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


# ---------------------------------------------------------------------------------------------- the worker

def _plain(value: Any) -> Any:
    """numpy / pandas scalars (SCUBA's weights and flags can be numpy values, or pandas' NA) as JSON values."""
    item = getattr(value, "item", None)
    if callable(item):
        try:
            return item()
        except (TypeError, ValueError):
            pass
    return str(value)


def folder_view(project: Path) -> dict[str, str]:
    """SCUBA's view of what the CLI retrieved, made in the worker (which imports SCUBA).

    The CLI retrieves into ``project/retrieved/main/default`` (the project's package folder), in its own folder
    names (``flexipages``). SCUBA reads ``project/force-app/main/default/<convert_type_to_folder_name(type)>``,
    which for two types differs in letter case only (``flexiPages``, ``mutingPermissionSets``): on a
    case-insensitive file system, where SCUBA was written, both name one folder; on Linux SCUBA would find no
    FlexiPage at all. ``force-app/main/default`` therefore holds one symbolic link per folder name, SCUBA's and
    the CLI's, to the CLI's folder: what a case-insensitive file system resolves. The CLI never scans
    ``force-app`` (it is not a package folder), so it never sees a link. Returns SCUBA's name -> the CLI's."""
    from scuba.helpers.utils import convert_type_to_folder_name  # type: ignore[import-not-found]

    from pytest_cua.testing.sfcli import directory_names

    cli = directory_names()
    wanted: set[str] = set()
    for path in sorted(Path("scuba", "phases", "evaluation").glob("evaluation_data_retrieval_workflows_*.json")):
        for steps in json.loads(path.read_text(encoding="utf-8")).values():
            for step in steps:
                wanted.update((step.get("params") or {}).get("types_and_members") or {})
    names = {folder: folder for folder in set(cli.values())}
    for mtype in sorted(wanted):
        theirs, ours = convert_type_to_folder_name(mtype).split("/")[0], cli.get(mtype)
        if ours and theirs.lower() == ours.lower():
            names[theirs] = ours
    view = project / "force-app" / "main" / "default"
    view.mkdir(parents=True, exist_ok=True)
    target = Path("..", "..", "..", RETRIEVED, "main", "default")
    for theirs, ours in names.items():
        link = view / theirs
        if not link.is_symlink():
            link.symlink_to(target / ours, target_is_directory=True)
    return {k: v for k, v in names.items() if k != v}


def fresh_retrieval(project: Path) -> None:
    """Empty what earlier records retrieved: SCUBA's metadata reads see the org as it is now, never a file
    left by the end state of another record (the CLI's retrieve adds and overwrites, it deletes nothing)."""
    shutil.rmtree(project / RETRIEVED, ignore_errors=True)
    (project / RETRIEVED / "main" / "default").mkdir(parents=True)


def _worker(alias: str) -> int:
    """Runs in the working folder with the checkout on sys.path: log in, then one record per stdin line."""
    proto = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)  # SCUBA prints a lot: all of it goes to the log, the protocol keeps its own descriptor
    sys.stdout = sys.stderr
    try:
        # SCUBA's checkout, on sys.path at run time only
        from scuba.helpers.salesforce_commands import authorize_using_access_token  # type: ignore[import-not-found]
        from scuba.phases.evaluation.master_evaluator import MilestoneEvaluator  # type: ignore[import-not-found]

        authorize_using_access_token(alias)
        evaluator = MilestoneEvaluator(org_alias=alias)
        project = Path("orgs") / "modified_state" / alias
        cased = folder_view(project)
        print(f"--- parity: SCUBA's folder names read as the CLI's: {cased}", file=sys.stderr)
    except BaseException:  # noqa: BLE001 - reported to the parent, which raises with the log's path
        proto.write(json.dumps({"ready": False, "error": traceback.format_exc(limit=8)[-3000:]}) + "\n")
        return 1
    proto.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            fresh_retrieval(project)
            card = evaluator.evaluate_instance(request["instance"], agent_answer=request.get("answer"))
            out: dict[str, Any] = {"score": card.score, "milestones": card.milestones,
                                   "failures": card.system_failures}
        except Exception:  # noqa: BLE001 - e.g. a QA record without an answer: SCUBA raises before its try
            out = {"error": traceback.format_exc(limit=8)[-3000:]}
        print(f"--- parity: {request['instance'].get('task_id')} -> {out.get('score')}", file=sys.stderr)
        proto.write(json.dumps(out, default=_plain) + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="the parity harness's worker (started by ScubaEvaluation)")
    parser.add_argument("--worker", action="store_true", required=True)
    parser.add_argument("--alias", default=DEFAULT_ALIAS)
    args = parser.parse_args(argv)
    return _worker(args.alias)


if __name__ == "__main__":
    sys.exit(main())
