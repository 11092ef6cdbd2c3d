"""SOQL for the embedded org: a lark grammar (``grammar.lark``), the parser into a typed tree (``parser``), the
engine that runs a parsed query against the store (``engine``) and the column metadata of a query (``columns``).

May import: the org's data modules (``schema``, ``values``, ``ids``, ``errors``); the store calls the engine
(``Org.query``, a function-level import), the engine receives the org and never imports the store.
"""

from __future__ import annotations
