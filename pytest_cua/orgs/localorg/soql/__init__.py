"""SOQL for the embedded org: a lark grammar (``grammar.lark``), the parser into a typed tree (``parser``) and the
engine that runs a parsed query against the store (``engine``)."""

from __future__ import annotations
