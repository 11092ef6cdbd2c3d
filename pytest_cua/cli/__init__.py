"""The ``pytest-cua`` command: org serve, image build, docker sweep, report, compare, doctor.

Each subsystem adds its own sub-commands through a ``register(subparsers)`` function in its own module, so
this file stays a dispatcher; ``doctor`` checks an installation.

May import: every layer (it is wiring); the sub-command modules are imported by name, when the command runs.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

# module path -> what it adds; each module has register(subparsers) that sets a ``func`` default
SUBCOMMAND_MODULES: tuple[str, ...] = (
    "pytest_cua.orgs.localorg.cli",  # org serve
    "pytest_cua.envs.docker.cli",  # image build, docker sweep
    "pytest_cua.results.cli",  # report
    "pytest_cua.cli.doctor",  # doctor
    "pytest_cua.results.compare.command",  # compare
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pytest-cua", description="pytest-cua companion commands")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name and name.startswith(exc.name):
                continue  # that subsystem is not part of this installation
            raise
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    return int(func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
