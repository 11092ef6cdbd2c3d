"""Environments: the protocol (``base``) and one provider module per kind."""

from pytest_cua.envs.base import (
    Environment,
    EnvironmentCrash,
    ProvisioningError,
    RollbackResidue,
    Snapshot,
    roll_back,
)

__all__ = ["Environment", "EnvironmentCrash", "ProvisioningError", "RollbackResidue", "Snapshot", "roll_back"]
