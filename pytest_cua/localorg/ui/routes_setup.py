"""Setup screens (placeholder until the setup routes land)."""

from __future__ import annotations

from typing import Any

from pytest_cua.localorg.app import OrgApp, RequestContext


def user_actions(ctx: RequestContext, user: dict[str, Any]) -> list[dict[str, str]]:
    """Post buttons of a user's page (Freeze / Unfreeze)."""
    return []


def register(app: OrgApp) -> None:
    """Add the setup routes."""
