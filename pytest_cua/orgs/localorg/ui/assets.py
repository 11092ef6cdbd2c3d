"""The built Lightning assets the UI's pages load: Salesforce's LWC engine, base components and Lightning Design
System with our ``one`` components, compiled by ``scripts/build_lightning.sh`` into
``pytest_cua/orgs/localorg/lightning/dist/`` (a wheel carries that folder), served at ``/assets/`` as Salesforce
serves SLDS (the base components load their icons from ``/assets/icons/<category>-sprite/svg/symbols.svg``).
"""

from __future__ import annotations

import mimetypes
from functools import lru_cache
from pathlib import Path

from werkzeug.security import safe_join
from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext

DIST = Path(__file__).resolve().parents[1] / "lightning" / "dist"
ASSETS = DIST / "assets"
#: what every page loads: the design system's style sheet and the one script of the components
STYLESHEET = "/assets/styles/salesforce-lightning-design-system.min.css"
SCRIPT = "/assets/one/one.js"
BUILD_COMMAND = "scripts/build_lightning.sh"
_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml",
          ".txt": "text/plain; charset=utf-8"}


class AssetsMissing(RuntimeError):
    """The Lightning assets are not built in this installation."""


@lru_cache(maxsize=1)
def _stamp(dist: Path) -> str | None:
    try:
        stamp = (dist / "BUILD-STAMP").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return stamp if stamp and (dist / "assets" / "one" / "one.js").is_file() else None


def build_stamp() -> str:
    """The hash of the sources the assets were built from (in asset URLs, so that browsers reload a new build);
    raises ``AssetsMissing`` naming the command that builds them."""
    stamp = _stamp(DIST)
    if stamp is None:
        raise AssetsMissing(f"the embedded org's Lightning UI is not built ({DIST} has no BUILD-STAMP and "
                            f"assets/one/one.js): run {BUILD_COMMAND} (scripts/install.sh runs it; it needs "
                            "Node.js and npm)")
    return stamp


def missing_page(error: AssetsMissing) -> Response:
    """What a UI page answers when the assets are not built: 503 and the command, not a broken page."""
    body = ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Lightning UI not built</title>"
            f"</head><body><h1>Lightning UI not built</h1><p>{error}</p></body></html>")
    return Response(body, status=503, content_type="text/html; charset=utf-8")


def serve(ctx: RequestContext, path: str) -> Response:
    """One built asset. Versioned URLs (``?v=<stamp>``) are cached for good; the icons and images the base
    components name without a version for an hour."""
    target = safe_join(str(ASSETS), path)
    if target is None or not Path(target).is_file():
        return Response("Not Found", status=404, content_type="text/plain; charset=utf-8")
    file = Path(target)
    kind = _TYPES.get(file.suffix) or mimetypes.guess_type(file.name)[0] or "application/octet-stream"
    response = Response(file.read_bytes(), content_type=kind)
    versioned = bool(ctx.request.args.get("v"))
    response.headers["Cache-Control"] = ("public, max-age=31536000, immutable" if versioned
                                         else "public, max-age=3600")
    return response


def register(app: OrgApp) -> None:
    """``/assets/<path>``: public, as a static file is (no record data lives there)."""
    app.add_route("/assets/<path:path>", serve, ["GET"], auth="none", endpoint="ui.assets", counted=False)
