"""Setup's home page (``/lightning/setup/SetupOneHome/home``): the Setup tree of every setup page. Each setup
page lives in its own route module (``routes_users``, ``routes_roles``, ``routes_sharing``, ``routes_objects``,
...); the package's ``register`` wires them all."""

from __future__ import annotations

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.ui.setup_common import setup_render


def setup_home(ctx: RequestContext) -> Response:
    """``/lightning/setup/SetupOneHome/home``."""
    return setup_render(ctx, "setup/home.html", title="Setup")


def register(app: OrgApp) -> None:
    """Add the route of Setup's home page."""
    app.add_route("/lightning/setup/SetupOneHome/home", setup_home, ["GET"], auth="ui", endpoint="ui.setup")
