"""Trace redaction: a Playwright trace zip rewritten with its text members redacted."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

from pytest_cua.redaction import redact_bytes


def redact_zip(path: Path) -> None:
    """Rewrite a trace zip with every text member redacted (URLs with sid=, cookies, tokens)."""
    tmp = path.with_suffix(".redacting")
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info)
            if not info.filename.endswith((".png", ".jpeg", ".jpg", ".webp", ".webm", ".woff", ".woff2")):
                data = redact_bytes(data)
            dst.writestr(info, data)
    os.replace(tmp, path)

