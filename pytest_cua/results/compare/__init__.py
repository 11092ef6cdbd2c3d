"""The comparison of two runs: is the new run worse than the base? Used by ``pytest-cua compare``, by
``pytest-cua report --compare`` and by the baseline gate of a pytest run (``--cua-baseline``).

One module per concept: the two inputs, loaded and checked (``summaries``), the comparison as data
(``model``), its computation task by task with the paired statistics (``comparison``), the gate's verdict
(``gate``), how its figures are written (``formatting``), the terminal and markdown text (``text``), the HTML
report (``html``) with its plots (``plots``), and the commands (``command``).

May import: ``pytest_cua.results.summary`` and ``pytest_cua.results.stats``; nothing of a pytest run (the
commands run without one).
"""

from __future__ import annotations

from pytest_cua.results.compare.comparison import compare, milestones_changed
from pytest_cua.results.compare.model import Comparison, Gate, Group, MilestoneChange, RunInfo, Side, TaskChange
from pytest_cua.results.compare.summaries import CompareError, check_summary, load_summary
from pytest_cua.results.compare.text import render_markdown, render_text

__all__ = ["CompareError", "Comparison", "Gate", "Group", "MilestoneChange", "RunInfo", "Side", "TaskChange",
           "check_summary", "compare", "load_summary", "milestones_changed", "render_markdown", "render_text"]
