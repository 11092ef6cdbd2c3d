"""``pytest-cua report --tables RUN``: a run's paper tables (``pytest_cua.results.tables``) as markdown (stdout,
or ``--markdown FILE``) and JSON (``--json FILE``).

    pytest-cua report --tables reports/summary.json --demos suites/prosoft/tasks --markdown tables.md
    pytest-cua report --tables /tmp/noop --demos suites/prosoft/tasks --replay /tmp/replay --json tables.json

``RUN`` is a ``summary.json``, the reports folder holding it, or a run folder (``reports/runs/<id>``);
``--demos`` task files or folders whose demonstrations give Table 2's steps; ``--replay`` a replay run of
the same tasks whose passed episodes give its seconds (default: RUN itself when its agent is replay).
Exit 0 when written, 2 on input that cannot be read (the message names the file).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

TABLES_ONLY = ("--demos", "--replay", "--json")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``--tables`` options of ``pytest-cua report`` (``--markdown`` is shared with ``--compare``)."""
    group = parser.add_argument_group("a run's paper tables")
    group.add_argument("--tables", metavar="RUN",
                       help="write the paper's tables of a run (summary.json, its reports folder or a run folder): "
                            "tasks and steps per level, success per level, program, domain and observation "
                            "setting (mean ± SE over trials), tokens and cost; markdown to stdout or --markdown")
    group.add_argument("--demos", nargs="+", metavar="PATH",
                       help="task files or folders whose demonstrations give the steps per level (Table 2)")
    group.add_argument("--replay", metavar="RUN", help="a replay run of the same tasks: its passed episodes give "
                                                       "the seconds per level (default: RUN when it is one)")
    group.add_argument("--json", metavar="FILE", help="write the tables as JSON too")


def given(args: argparse.Namespace) -> list[str]:
    """The ``--tables``-only options given."""
    values = (args.demos, args.replay, args.json)
    return [name for name, value in zip(TABLES_ONLY, values) if value is not None]


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """Check the options against ``--tables``, then write the tables; 2 on unusable input."""
    if args.tables is None:
        parser.error(f"{', '.join(given(args))}: only with --tables RUN")
    if args.compare is not None:
        parser.error("--tables and --compare: one at a time")
    if args.results is not None or args.output is not None:
        parser.error("RESULTS and -o/--output are for the Allure report; with --tables use --markdown / --json")
    stray = [name for name, on in (("--html", args.html is not None), ("--alpha", args.alpha is not None),
                                   ("--max-drop", args.max_drop is not None),
                                   ("--quarantine-flaky", args.quarantine_flaky)) if on]
    if stray:
        parser.error(f"{', '.join(stray)}: only with --compare")
    from pytest_cua.results.tables import TablesError, build_tables, demo_steps, load_run
    from pytest_cua.results.tables_markdown import to_markdown

    try:
        records, settings = load_run(args.tables)
        steps = demo_steps(args.demos) if args.demos else None
        replay = load_run(args.replay)[0] if args.replay else None
        tables = build_tables(records, settings, steps=steps, replay=replay)
    except TablesError as exc:
        print(f"pytest-cua report --tables: {exc}", file=sys.stderr)
        return 2
    text = to_markdown(tables)
    if args.markdown:
        Path(args.markdown).parent.mkdir(parents=True, exist_ok=True)
        Path(args.markdown).write_text(text, encoding="utf-8")
        print(f"pytest-cua report: tables in {args.markdown}")
    else:
        print(text)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(tables, indent=1), encoding="utf-8")
        print(f"pytest-cua report: tables as JSON in {args.json}", file=sys.stderr if not args.markdown else sys.stdout)
    return 0
