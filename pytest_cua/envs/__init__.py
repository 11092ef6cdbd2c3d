"""Environments: the provider contract and the protocol (``base``), the installed providers (``registry``),
and one provider per kind: ``browser`` (a package), ``salesforce``, ``docker``."""

from pytest_cua.envs.base import (
    EnvContext,
    Environment,
    EnvironmentCrash,
    EnvironmentProvider,
    EnvSettings,
    ProvisioningError,
    RollbackResidue,
    Snapshot,
    roll_back,
)

__all__ = ["EnvContext", "EnvSettings", "Environment", "EnvironmentCrash", "EnvironmentProvider",
           "ProvisioningError", "RollbackResidue", "Snapshot", "roll_back"]
