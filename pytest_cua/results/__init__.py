"""Results: the task record and its schema (``records``), a run's folder and resume (``runs``), the summary
(``summary``) and its statistics (``stats``), the terminal reporter (``reporter``), the comparison of two runs
(``compare``, rendered by ``compare_report``), Allure results (``allure``) and ``pytest-cua report`` (``cli``).

May import every layer below it (core, ``tasks``, ``orgs``, ``envs``, ``agents``, ``episode``); only the wiring
(``plugin``, ``fixtures``, ``cli``) imports it.
"""
