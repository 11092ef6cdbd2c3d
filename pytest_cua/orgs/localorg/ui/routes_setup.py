"""Setup's home page (``/lightning/setup/SetupOneHome/home``): the Setup tree of every setup page. Each setup
page lives in its own route module (``routes_users``, ``routes_roles``, ``routes_sharing``, ``routes_objects``,
...); the package's ``register`` wires them all."""

from __future__ import annotations

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.ui.setup_common import setup_render


#: Setup Home's Create menu: shortcuts to the creation pages
CREATE_ITEMS = [{"label": "App", "url": "/lightning/setup/NavigationMenus/new"},
                {"label": "Custom Object", "url": "/lightning/setup/ObjectManager/new"},
                {"label": "Custom Tab", "url": "/lightning/setup/CustomTabs/new"},
                {"label": "User", "url": "/lightning/o/User/new"}]


def setup_home(ctx: RequestContext) -> Response:
    """``/lightning/setup/SetupOneHome/home``."""
    return setup_render(ctx, "setup/home.html", title="Home", create_items=CREATE_ITEMS)


def register(app: OrgApp) -> None:
    """Add the route of Setup's home page."""
    app.add_route("/lightning/setup/SetupOneHome/home", setup_home, ["GET"], auth="ui", endpoint="ui.setup")
