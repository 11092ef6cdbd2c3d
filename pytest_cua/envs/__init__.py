"""Environments: the contract every environment and provider meets (``base``), the installed providers
(``registry``), set-of-marks drawing shared by the providers (``marks``), and one provider per kind: ``browser``
(Playwright's Chromium), ``salesforce`` (an org and a browser logged in to it) and ``docker`` (desktop
containers).

May import the core modules, ``tasks`` and ``orgs``. ``base`` itself imports only the core modules and the task
model, so that ``tasks`` can name the contract. The contract's names are loaded on first use, so the docker
package's commands and recipes need none of it.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__all__ = ["EnvContext", "EnvSettings", "Environment", "EnvironmentCrash", "EnvironmentProvider",
           "ProvisioningError", "RollbackResidue", "Snapshot", "roll_back"]

if TYPE_CHECKING:  # pragma: no cover
    from pytest_cua.envs.base import (EnvContext, Environment, EnvironmentCrash, EnvironmentProvider, EnvSettings,
                                      ProvisioningError, RollbackResidue, Snapshot, roll_back)


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'pytest_cua.envs' has no attribute {name!r}")
    return getattr(import_module("pytest_cua.envs.base"), name)
