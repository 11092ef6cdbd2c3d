"""The built Lightning assets the UI's pages load: Salesforce's LWC engine, base components and Lightning Design
System with our ``one`` components, compiled by ``scripts/build_lightning.sh`` into
``pytest_cua/orgs/localorg/lightning/dist/`` (a wheel carries that folder), served at ``/assets/`` as Salesforce
serves SLDS (the base components load their icons from ``/assets/icons/<category>-sprite/svg/symbols.svg``).
"""

from __future__ import annotations

import json
import mimetypes
import re
from functools import lru_cache
from pathlib import Path

from werkzeug.security import safe_join
from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext

DIST = Path(__file__).resolve().parents[1] / "lightning" / "dist"
ASSETS = DIST / "assets"
#: what every page loads: the design system's style sheet and the shell's script (the entry ``one``); a page with
#: a component of its own (``data-one="one-list-view"``) loads that component's entry script too
STYLESHEET = "/assets/styles/salesforce-lightning-design-system.min.css"
SHELL = "one"
_PLACEHOLDER = re.compile(r'data-one="(one-[a-z-]+)"')
BUILD_COMMAND = "scripts/build_lightning.sh"
_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml",
          ".txt": "text/plain; charset=utf-8"}


class AssetsMissing(RuntimeError):
    """The Lightning assets are not built in this installation."""


@lru_cache(maxsize=1)
def _build(dist: Path) -> tuple[str, dict[str, str]] | None:
    """(stamp, entry name -> script file name) of the build in ``dist``; None when it is missing or incomplete."""
    try:
        stamp = (dist / "BUILD-STAMP").read_text(encoding="utf-8").strip()
        entries = json.loads((dist / "ENTRIES").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not stamp or not isinstance(entries, dict) or SHELL not in entries:
        return None
    for name in entries.values():
        if not isinstance(name, str) or "/" in name or not (dist / "assets" / "one" / name).is_file():
            return None
    return stamp, entries


def _built() -> tuple[str, dict[str, str]]:
    found = _build(DIST)
    if found is None:
        raise AssetsMissing(f"the embedded org's Lightning UI is not built ({DIST} has no BUILD-STAMP, ENTRIES and "
                            f"the scripts ENTRIES names): run {BUILD_COMMAND} (scripts/install.sh runs it; it needs "
                            "Node.js and npm)")
    return found


def build_stamp() -> str:
    """The hash of the sources the assets were built from (in asset URLs, so that browsers reload a new build);
    raises ``AssetsMissing`` naming the command that builds them."""
    return _built()[0]


def script_urls(page: str) -> list[str]:
    """The entry scripts ``page`` (HTML) loads: the shell's, then one per component it places (names carry
    their content's hash). A component without an entry of its own is the shell's; raises ``AssetsMissing``."""
    entries = _built()[1]
    names = [SHELL] + sorted({tag for tag in _PLACEHOLDER.findall(page) if tag in entries})
    return [f"/assets/one/{entries[name]}" for name in names]


def with_scripts(page: str) -> str:
    """``page`` with its entry scripts (ES modules, in order) before ``</body>``."""
    tags = "".join(f'<script type="module" src="{src}"></script>' for src in script_urls(page))
    at = page.rfind("</body>")
    return page[:at] + tags + page[at:] if at >= 0 else page + tags


def missing_page(error: AssetsMissing) -> Response:
    """What a UI page answers when the assets are not built: 503 and the command, not a broken page."""
    body = ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Lightning UI not built</title>"
            f"</head><body><h1>Lightning UI not built</h1><p>{error}</p></body></html>")
    return Response(body, status=503, content_type="text/html; charset=utf-8")


def serve(ctx: RequestContext, path: str) -> Response:
    """One built asset. Versioned URLs (``?v=<stamp>``) and the scripts (hashed names) are cached for good; the
    icons and images the base components name without a version for an hour."""
    target = safe_join(str(ASSETS), path)
    if target is None or not Path(target).is_file():
        return Response("Not Found", status=404, content_type="text/plain; charset=utf-8")
    file = Path(target)
    kind = _TYPES.get(file.suffix) or mimetypes.guess_type(file.name)[0] or "application/octet-stream"
    response = Response(file.read_bytes(), content_type=kind)
    # the scripts have their content's hash in their names (``one/one-B3x9.js``, ``one/datatable-DZujXKin.js``)
    versioned = bool(ctx.request.args.get("v")) or path.startswith("one/")
    response.headers["Cache-Control"] = ("public, max-age=31536000, immutable" if versioned
                                         else "public, max-age=3600")
    return response


def register(app: OrgApp) -> None:
    """``/assets/<path>``: public, as a static file is (no record data lives there)."""
    app.add_route("/assets/<path:path>", serve, ["GET"], auth="none", endpoint="ui.assets", counted=False)
