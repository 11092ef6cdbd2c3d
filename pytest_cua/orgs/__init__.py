"""Salesforce orgs: the embedded Salesforce-compatible org (``localorg``), real orgs over Salesforce's APIs
(``realorg``), the orgs file and the lease pool (``pool``), logins (``auth``) and the Metadata API client
(``mdapi``).

May import the core modules only (``pytest_cua.redaction``, ``package_data``); environments build on orgs,
never the other way round.
"""
