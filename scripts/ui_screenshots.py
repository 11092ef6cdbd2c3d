"""Write a screenshot of every setup, report and list-view page of the embedded org's UI, for a reader to look at.

    python3 scripts/ui_screenshots.py [OUT_DIR]      # default: reports/ui-screenshots

Starts the embedded org (its default data) on loopback, logs real Chromium in through frontdoor, makes the few
records some pages need (``pytest_cua.orgs.localorg.ui.page_catalog``: a custom object with a field, a permission set,
a group with a muting permission set, an account and a lead), then opens each page and writes ``NN-name.png``
(full page). Prints one line per page and the folder.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from pytest_cua.orgs.localorg.server import OrgServer
from pytest_cua.orgs.localorg.ui.page_catalog import pages, prepare

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--no-first-run", "--disable-sync"]


def main(argv: list[str]) -> int:
    from playwright.sync_api import sync_playwright

    out = Path(argv[1] if len(argv) > 1 else "reports/ui-screenshots")
    out.mkdir(parents=True, exist_ok=True)
    server = OrgServer(Path(tempfile.mkdtemp(prefix="cua-ui-shots-")), host="127.0.0.1", port=0)
    server.start()
    try:
        ids = prepare(server)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
            page = browser.new_context(ignore_https_errors=True, viewport={"width": 1280, "height": 900}).new_page()
            page.goto(f"{server.url}/secur/frontdoor.jsp?sid={server.access_token()}&retURL=/lightning/page/home")
            failed = 0
            for n, (name, path) in enumerate(pages(ids), 1):
                response = page.goto(server.url + path)
                status = response.status if response is not None else 0
                target = out / f"{n:02d}-{name}.png"
                page.screenshot(path=str(target), full_page=True)
                failed += status >= 400
                print(f"{status} {path} -> {target}")
            browser.close()
    finally:
        server.stop()
    print(f"{n} pages written to {out}/ ({failed} answered an error status)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
