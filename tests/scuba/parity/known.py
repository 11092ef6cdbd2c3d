"""The listed deviations, as the parity test reads them, and its summary.

``suites/scuba/DEVIATIONS.md`` ends with the table of end states where SCUBA's score and ours differ on
purpose: one row a task and end state, naming the section of that file that gives the reason, and whether
SCUBA's own evaluation fails there (raises: score -1, a system failure)::

    | task | end state | SCUBA fails | section |
    |---|---|---|---|
    | admin_008_003 | oracle | no | create_list_view: filter keys, operators and `today` read as what they mean |

An end state is noop, oracle, partial, case, or a near miss of ``perturb.py`` by its name (``case:list_name``,
``duplicate``, ``wrong_also:sales_005_002``). A row naming a section the file does not have, another end state, or a
task twice in one end state is an error naming the line.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from .perturb import FAMILIES

DEVIATIONS = Path(__file__).resolve().parents[3] / "suites" / "scuba" / "DEVIATIONS.md"
TABLE_HEADING = "Parity: the end states where SCUBA's score differs"
STATES = ("noop", "oracle", "partial")
LISTED_STATES = (*STATES, "case")  # case: a metadata name typed in another letter case


class DeviationsTableError(ValueError):
    """The parity table of DEVIATIONS.md cannot be read."""


@dataclass(frozen=True)
class Known:
    task_id: str
    state: str
    scuba_fails: bool
    section: str


def read_known(path: Path = DEVIATIONS) -> dict[tuple[str, str], Known]:
    text = path.read_text(encoding="utf-8")
    sections = {m.group(1).strip() for m in re.finditer(r"^## (.+)$", text, re.M)}
    if TABLE_HEADING not in sections:
        raise DeviationsTableError(f"{path}: no section '## {TABLE_HEADING}'")
    known: dict[tuple[str, str], Known] = {}
    inside = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("## "):
            inside = line[3:].strip() == TABLE_HEADING
            continue
        if not inside or not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] in ("task", "") or set(cells[0]) <= {"-", ":"}:
            continue
        if len(cells) != 4:
            raise DeviationsTableError(f"{path}:{number}: a row has 4 cells (task, end state, SCUBA fails, "
                                       f"section), not {len(cells)}")
        task_id, state, fails, section = cells
        section = section.strip("`")
        if state not in LISTED_STATES and state.split(":")[0] not in FAMILIES:
            raise DeviationsTableError(f"{path}:{number}: end state {state!r} is not one of "
                                       f"{', '.join(LISTED_STATES)} nor a near miss (family:key, a family of "
                                       f"{', '.join(FAMILIES)})")
        if fails not in ("yes", "no"):
            raise DeviationsTableError(f"{path}:{number}: 'SCUBA fails' is yes or no, not {fails!r}")
        if section not in sections:
            raise DeviationsTableError(f"{path}:{number}: no section '## {section}' in the file")
        if (task_id, state) in known:
            raise DeviationsTableError(f"{path}:{number}: {task_id} [{state}] is listed twice")
        known[(task_id, state)] = Known(task_id, state, fails == "yes", section)
    return known


KNOWN = read_known()
MIN_PER_TEMPLATE = 8  # near misses compared per template in the full run (PYTEST_CUA_PARITY_NEAR=all)


def summary_markdown(rows: Iterable[dict[str, Any]]) -> str:
    """Counts per end state (compared, agreeing, listed, partial) and a table of every disagreement."""
    rows = list(rows)
    lines = ["# Parity with SCUBA's evaluator", "", "| end state | compared | agree | listed deviations | "
             "other disagreements | SCUBA failed | skipped |", "|---|---|---|---|---|---|---|"]
    bad: list[str] = []
    for state in STATES:
        counts = dict.fromkeys(("compared", "agree", "listed", "other", "failed", "skipped"), 0)
        for row in rows:
            cell = row.get(state)
            if cell is None:
                continue
            if "skipped" in cell:
                counts["skipped"] += 1
                continue
            counts["compared"] += 1
            if cell["scuba"]["failures"] is not None:
                counts["failed"] += 1
            listed = (row["task_id"], state) in KNOWN
            if cell["agree"]:
                counts["agree"] += 1
            elif listed:
                counts["listed"] += 1
            else:
                counts["other"] += 1
            if not cell["agree"]:
                bad.append(f"| {row['task_id']} | {row['template']} | {state} | {cell['ours']['score']:.2f} | "
                           f"{cell['scuba']['score']:.2f} | {'listed' if listed else '**not listed**'} | "
                           f"{cell.get('made', '')} |")
        lines.append(f"| {state} | {counts['compared']} | {counts['agree']} | {counts['listed']} | "
                     f"{counts['other']} | {counts['failed']} | {counts['skipped']} |")
    partial = [r["partial"] for r in rows if isinstance(r.get("partial"), dict) and "partial" in r["partial"]]
    lines += ["", f"Partial end states strictly between 0 and 1 (ours): {sum(1 for p in partial if p['partial'])}"
                  f" of {len(partial)}", "", "## Disagreements", "",
              "| task | template | end state | ours | SCUBA | | how the partial state was made |",
              "|---|---|---|---|---|---|---|", *bad]
    return "\n".join(lines) + "\n"


def near_summary_markdown(rows: list[dict[str, Any]]) -> str:
    """Per family: near misses compared, agreeing (ours, exact), not made; the templates with fewer than
    MIN_PER_TEMPLATE compared; every disagreement."""
    made = Counter(r["family"] for r in rows if "skipped" not in r)
    skipped = Counter(r["family"] for r in rows if "skipped" in r)
    agree = Counter(r["family"] for r in rows if r.get("agree"))
    exact_agree = Counter(r["family"] for r in rows if r.get("exact_agree"))
    per_template = Counter(r["template"] for r in rows if "skipped" not in r)
    lines = ["# Near-miss end states", "", "| family | compared | ours agrees | exact agrees | not made |",
             "|---|---|---|---|---|"]
    lines += [f"| {f} | {made[f]} | {agree[f]} | {exact_agree[f]} | {skipped[f]} |" for f in FAMILIES
              if made[f] or skipped[f]]
    lines += ["", f"compared {sum(made.values())}, ours agrees on {sum(agree.values())}, exact on "
                  f"{sum(exact_agree.values())}; templates with fewer than {MIN_PER_TEMPLATE} compared states: "
                  f"{sorted(t for t, n in per_template.items() if n < MIN_PER_TEMPLATE) or 'none'}", "",
              "| task | state | ours | exact | SCUBA | how |", "|---|---|---|---|---|---|"]
    for r in rows:
        if "skipped" not in r and not (r.get("agree") and r.get("exact_agree")):
            lines.append(f"| {r['task_id']} | {r['state']} | {r['ours']['score']:.2f} | "
                         f"{r['exact']['crash'] and 'crash' or format(r['exact']['score'], '.2f')} | "
                         f"{r['scuba']['score']:.2f} | {r['made']} |")
    return "\n".join(lines) + "\n"


def merge(folder: Path) -> str:
    """The summary of every ``<task id>.json`` in ``folder`` and every near miss in ``folder/near`` (the reports
    of all xdist workers of a run)."""
    rows, near = [], []
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and "task_id" in data and "noop" in data:
            rows.append(data)
    for path in sorted((folder / "near").glob("*.json")):
        near.append(json.loads(path.read_text(encoding="utf-8")))
    return summary_markdown(rows) + ("\n" + near_summary_markdown(near) if near else "")


if __name__ == "__main__":  # python -m tests.scuba.parity.known reports/parity  -> writes summary.md there
    import sys

    target = Path(sys.argv[1] if len(sys.argv) > 1 else "reports/parity")
    (target / "summary.md").write_text(merge(target), encoding="utf-8")
    print((target / "summary.md").read_text(encoding="utf-8"))
