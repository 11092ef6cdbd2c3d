"""The order the project's tests run in: the modules whose tests run whole inner suites (each test tens of
seconds) first, the rest after in collection order.

pytest-xdist hands out the first quarter of the tests round robin and the rest to whichever worker is free. With
the long tests at the end of the collection (tests/realorg, tests/scuba, ...), one worker ran a 100 s inner run
while the other had nothing left; with them first, the many short tests fill the gaps and both workers finish
together. The order within a module is kept, and every worker collects the same order (xdist checks that)."""

from __future__ import annotations

import pytest

#: the modules with inner suite runs, longest first (per-module worker time of a clean-clone CI's junit XML)
LONG_FIRST = (
    "tests/realorg/test_suite_on_api_orgs.py",
    "tests/scuba/test_suite.py",
    "tests/models/test_e2e.py",
    "tests/desktop/test_prosoft_suite.py",
    "tests/desktop/test_prosoft_l4.py",
    "tests/test_packaging.py",
    "tests/realorg/test_login.py",
    "tests/desktop/test_images.py",
    "tests/scuba/test_served_orgs.py",
    "tests/desktop/test_remote_docker.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    rank = {path: i for i, path in enumerate(LONG_FIRST)}
    root = config.rootpath

    def key(item: pytest.Item) -> int:
        try:
            relative = item.path.relative_to(root).as_posix()
        except ValueError:
            return len(rank)
        return rank.get(relative, len(rank))

    items.sort(key=key)  # stable: the rest keep their collection order
