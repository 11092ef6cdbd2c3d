"""The embedded Salesforce-compatible org of pytest-cua: schema, record store, SOQL, REST API and server.

Public entry points: :class:`pytest_cua.orgs.localorg.store.Org` (the in-memory store with snapshots) and
:class:`pytest_cua.orgs.localorg.server.OrgServer` (the HTTPS server around it).
"""

from __future__ import annotations
