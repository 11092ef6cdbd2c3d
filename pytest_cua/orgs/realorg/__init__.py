"""Orgs reached over Salesforce's standard APIs only (REST, the SOAP partner API, the Metadata API): the path
of a real Salesforce org, and of the embedded org when its orgs-file entry is of kind ``salesforce``.

- ``client``: simple-salesforce over a session that renews itself and waits out REQUEST_LIMIT_EXCEEDED;
- ``records``: the records' baseline, their rollback and the residue check;
- ``metadata``: the same for metadata, by listing and content;
- ``provision``: a suite's prerequisite records upserted by their unique keys;
- ``handle``: ``ApiOrg``, what ``pytest_cua.envs.salesforce`` drives for such an org.

May import: the core modules (``redaction``), the environment contract (``pytest_cua.envs.base``: its errors),
``pytest_cua.orgs.auth`` / ``mdapi`` / ``pool`` and of the embedded org the seed order
(``localorg.seed.dependency_order``) and the store type; never an
environment provider (``envs.salesforce``) or anything above it.
"""
