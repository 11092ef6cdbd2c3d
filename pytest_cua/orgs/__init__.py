"""Salesforce orgs: the embedded Salesforce-compatible org (``localorg``), real orgs over Salesforce's APIs
(``realorg``), the orgs file and the lease pool (``pool``), logins (``auth``) and the Metadata API client
(``mdapi``).

Layer "orgs" (tests/architecture/layers.py): may import the core modules (``pytest_cua.redaction``,
``package_data``, ...), the task model and the environment contract (``pytest_cua.envs.base``: ``realorg``
raises its errors) and ``pytest_cua.tasks``; never the environment providers (``envs.salesforce``, ...), agents,
the episode, results or the wiring, which build on orgs.
"""
