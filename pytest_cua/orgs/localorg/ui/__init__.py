"""The embedded org's web interface: server-rendered, accessible pages over the same store as the API.

``register(app)`` is called by ``OrgServer`` (the package is picked up automatically) and adds every UI route with
``auth="ui"`` (a browser session; a redirect to the login page otherwise). See ``README.md`` for the URLs and the
accessible names the pages expose.

Modules, bottom first (a module imports only the ones above it in this list, and a route module never imports
another route module):

- ``assets``: the built Lightning assets (``lightning/dist``: SLDS, the LWC engine, the base components and our
  ``one`` components) served at ``/assets/``.
- ``web``: the Jinja environment, ``render``, CSRF tokens, flash messages, redirects, the global navigation and
  the app launcher.
- ``forms``: schema-driven form fields, value display, parsing of posted forms, ``FormErrors``.
- ``listing``: list columns, list-view filters, search, sort and pagination.
- ``criteria``: the criteria rows (field, operator, value, filter logic) of setup rules.
- ``lookups``: lookup fields of record forms (Lightning's type-ahead lookup: its props, the records a search
  finds).
- ``record_page``: what several routes build into record pages: related lists, an opportunity's path stages, a
  user's Freeze / Unfreeze.
- ``setup_common``: the setup layout and navigation, the request's Metadata store, API-name rules, small setup
  form handlers (``saved``, ``save_record``, ``record_form``, ``chosen_ids``, ``save_links``).
- ``formulas``: the formula editor's helper selects and the checks of a typed formula.
- ``object_manager``: the Object Manager's address, its object page layout, data type labels, component leaves.
- ``picklist_values``: where a picklist field's values live and its page's "Values" section.
- ``page_catalog``: the catalogue of pages (and the records they need) for the screenshot script and the tests.
- ``routes_*``: one module per page family, each with ``register(app)`` adding its routes (``register``
  below calls them all). Records: ``routes_records`` (home, search, lists, record forms and pages, new list
  view), ``routes_record_actions`` (path, hierarchy, View All, Add Products, Add
  Members), ``routes_convert``, ``routes_listviews``, ``routes_reports``, ``routes_dashboards``. Setup:
  ``routes_setup`` (Setup home), ``routes_users``, ``routes_roles``, ``routes_sharing``,
  ``routes_validation_rules``, ``routes_groups`` (queues, public groups), ``routes_perms`` (permission sets and
  groups), ``routes_profiles``, ``routes_objects``, ``routes_fields``, ``routes_field_wizard``,
  ``routes_picklists``, ``routes_flexipages``, ``routes_tabs``, ``routes_security`` (password policies),
  ``routes_object_settings``, ``routes_processes`` (sales processes, matching rules), ``routes_apps``,
  ``routes_assignment`` (case assignment rules), ``routes_entitlements``, ``routes_territory``,
  ``routes_approvals``.
- ``templates/``: the Jinja templates (``setup/`` for the setup layout; ``_fields.html``, ``_picker.html`` and
  ``setup/_inputs.html`` hold the shared macros).

May import: the embedded org's core (``orgs.localorg``: ``app``, ``auth``, ``store``, ``schema``, ``errors``,
``formula``, ``metadata`` ...), the core modules of ``pytest_cua`` and the libraries it renders with (werkzeug,
jinja2). Never ``envs``, ``agents``, ``episode``, ``results`` or the wiring: the UI is part of the org, which
lies below all of them.
"""

from __future__ import annotations

from pytest_cua.orgs.localorg.app import OrgApp


def register(app: OrgApp) -> None:
    """Add every UI route to ``app``: each route module adds its own through its ``register(app)``, in this order."""
    from pytest_cua.orgs.localorg.ui import (assets, routes_approvals, routes_apps, routes_assignment, routes_convert,
                                             routes_dashboards, routes_entitlements, routes_field_wizard,
                                             routes_fields, routes_flexipages, routes_groups, routes_listviews,
                                             routes_object_settings, routes_objects, routes_perms,
                                             routes_picklists, routes_processes, routes_profiles,
                                             routes_record_actions, routes_records, routes_reports, routes_roles,
                                             routes_security, routes_setup, routes_sharing, routes_tabs,
                                             routes_territory, routes_users, routes_validation_rules,
                                             setup_frame)

    for module in (routes_reports, routes_dashboards, routes_listviews, routes_convert, routes_record_actions,
                   routes_records, routes_setup, routes_users, routes_roles, routes_sharing, routes_validation_rules,
                   routes_groups, routes_perms, routes_profiles, routes_objects, routes_fields, routes_field_wizard,
                   routes_picklists, routes_flexipages, routes_tabs, routes_security, routes_object_settings,
                   routes_processes, routes_apps, routes_assignment, routes_entitlements, routes_territory,
                   routes_approvals):
        module.register(app)
    assets.register(app)
    app.add_response_filter(setup_frame.keep_frame)
