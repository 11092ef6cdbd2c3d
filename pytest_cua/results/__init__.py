"""Results: what a run produced and how it is reported.

- ``records``: the task record, its schema (``RECORD_KEY``, outcomes and error kinds) and how it is built from
  what the fixtures learned (``TaskState``), including the record of a test whose worker died.
- ``runs``: a run's folder on disk (``reports/runs/<run id>/``): every final record the moment it is made, the
  task tests collected and the sessions (so a summary says whether the run is complete), and ``--cua-resume``.
- ``reruns``: ``--cua-retry-errors``, the run-test protocol that runs an errored task again, and the
  controller's handling of a worker that died under a test.
- ``summary`` and ``stats``: the aggregation of the records into ``summary.json`` and the terminal table.
- ``reporter``: the controller-side pytest plugin that collects the records, writes the summary, prints it and
  applies the baseline gate.
- ``compare``: the comparison of two runs (a package: the computation, the gate, text and HTML reports, and
  ``pytest-cua compare``).
- ``tables``, ``tables_markdown``, ``tables_command``: the tables of a benchmark paper from a run (per level,
  program, domain and observation setting, mean +- standard error over trials; ``pytest-cua report --tables``).
- ``allure``: Allure results; ``cli``: ``pytest-cua report``.

May import every layer below it (core, ``tasks``, ``orgs``, ``envs``, ``agents``, ``episode``); only the wiring
(``plugin``, ``fixtures``, ``cli``) imports it.
"""
