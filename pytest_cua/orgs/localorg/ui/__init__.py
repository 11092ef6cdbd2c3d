"""The embedded org's web interface: server-rendered, accessible pages over the same store as the API.

``register(app)`` is called by ``OrgServer`` (the module is picked up automatically) and adds every UI route with
``auth="ui"`` (a browser session; a redirect to the login page otherwise). See ``README.md`` for the URLs and the
accessible names the pages expose.
"""

from __future__ import annotations

from pytest_cua.orgs.localorg.app import OrgApp


def register(app: OrgApp) -> None:
    """Add the UI routes (records, lead conversion, setup) to ``app``."""
    from pytest_cua.orgs.localorg.ui import (routes_convert, routes_dashboards, routes_listviews, routes_records,
                                        routes_reports, routes_setup)

    routes_reports.register(app)
    routes_dashboards.register(app)
    routes_listviews.register(app)
    routes_convert.register(app)
    routes_records.register(app)
    routes_setup.register(app)
