"""Setup > Profiles: the org's profiles (name, user license, custom or standard) and a profile's page with its
Object Settings (the object and field permissions, viewed and edited through
``routes_object_settings``)."""

from __future__ import annotations

from typing import Any

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.ui.setup_common import profiles, setup_render
from pytest_cua.orgs.localorg.ui.web import not_found_page

PAGE = "/lightning/setup/EnhancedProfiles"


def _license(ctx: RequestContext, profile: dict[str, Any]) -> str:
    lic = ctx.org.get("UserLicense", profile["UserLicenseId"]) if profile.get("UserLicenseId") else None
    return str((lic or {}).get("Name") or "")


def profile_list(ctx: RequestContext) -> Response:
    """``/lightning/setup/EnhancedProfiles/home``: every profile with its user license."""
    rows = [{"url": f"{PAGE}/{p['Id']}/view", "cells": [p.get("Name") or "", _license(ctx, p), p.get("Description") or ""]}
            for p in profiles(ctx)]
    return setup_render(ctx, "setup/table.html", title="Profiles", heading="Profiles", rows=rows,
                        columns=["Profile Name", "User License", "Description"], actions=[])


def profile_view(ctx: RequestContext, rid: str) -> Response:
    """A profile: name, user license, description, its users; Object Settings."""
    profile = ctx.org.get("Profile", rid)
    if profile is None:
        return not_found_page(ctx, "The profile does not exist.")
    users = sorted(ctx.org.find("User", ProfileId=profile["Id"]), key=lambda u: str(u.get("Name") or "").lower())
    return setup_render(ctx, "setup/detail.html", title=f"Profile {profile.get('Name')}", kicker="Profile",
                        heading=profile.get("Name"),
                        actions=[{"label": "Object Settings", "url": f"{PAGE}/{profile['Id']}/objects"}],
                        details=[("Name", profile.get("Name") or ""), ("User License", _license(ctx, profile)),
                                 ("Description", profile.get("Description") or "")],
                        sections=[{"title": "Assigned Users", "columns": ["Full Name", "Username"],
                                   "rows": [{"url": f"/lightning/r/User/{u['Id']}/view",
                                             "cells": [u.get("Name"), u.get("Username")]} for u in users]}])


def register(app: OrgApp) -> None:
    """Add the profile routes."""
    app.add_route(f"{PAGE}/home", profile_list, ["GET"], auth="ui", endpoint="ui.profiles")
    app.add_route(f"{PAGE}/<rid>/view", profile_view, ["GET"], auth="ui", endpoint="ui.profile")
