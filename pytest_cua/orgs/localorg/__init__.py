"""The embedded Salesforce-compatible org of pytest-cua: schema, record store, SOQL, REST/SOAP/Metadata APIs and
server.

Public entry points: :func:`pytest_cua.orgs.localorg.seed.seeded_org` (an org with its behaviours, schema and
seed), :class:`pytest_cua.orgs.localorg.store.Org` (the in-memory store with snapshots) and
:class:`pytest_cua.orgs.localorg.server.OrgServer` (the HTTPS server around it).

The layers plug into each other rather than import each other:

- the data: ``ids``, ``values``, ``errors``, ``schema`` (object schemas), ``formula`` (validation-rule formulas),
  ``validation`` (checks before a write), ``snapshots`` (``OrgSnapshot`` and residue), ``store`` (``Org``: CRUD,
  transactions, snapshot/restore, recycle bin, lead conversion; it fires events, ``Org.hooks``),
  ``behaviors`` (derived fields and companion records, subscribed to the store's events by
  ``behaviors.install``), ``seed`` (an org from schema and seed files), ``soql`` (parser and engine);
- the HTTP side: ``app`` (``OrgApp``: routing, authentication, limits; it knows no protocol), the protocols that
  register themselves with it through ``register(app)``: ``api`` (REST and OAuth), ``soap`` (the partner API),
  ``metadata`` (the Metadata API), ``analytics`` (reports and dashboards), ``pages`` (login, frontdoor),
  ``control`` (snapshot/restore over HTTPS) and the UI package ``ui``; ``auth`` (credentials, tokens),
  ``tls``, ``httpserver``, ``server`` (``OrgServer``, which assembles them) and ``cli`` (``org serve``).

May import: the core modules (``package_data``) and, within the package, only downwards in the list above (a protocol
imports ``app``, never the other way round); never ``pytest_cua.envs`` or anything above it.
"""

from __future__ import annotations
