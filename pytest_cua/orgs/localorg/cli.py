"""``pytest-cua org serve``: run the embedded org over HTTPS until interrupted.

``--write-entry FILE`` also adds the org to an orgs file (``--cua-orgs FILE``, mode 0600) under ``--name``, so
pytest workers elsewhere can lease it (see ``pytest_cua.orgs.pool``)."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path


def default_data_dir() -> Path:
    """``$XDG_CACHE_HOME/pytest-cua/localorg`` (``~/.cache/...`` by default)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pytest-cua" / "localorg"


def serve(args: argparse.Namespace) -> int:
    """Start the server and print one JSON line with the instance URL, credentials and CA path."""
    from pytest_cua.orgs.localorg.server import OrgServer

    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(message)s")
    data_dir = Path(args.data_dir) if args.data_dir else default_data_dir()
    try:
        server = OrgServer(data_dir, host=args.host, port=args.port, fixtures=args.fixtures,
                           extensions=[] if args.no_ui else None, daily_api_requests=args.daily_api_requests,
                           jwt_certificate=args.jwt_cert,
                           **({"token_ttl": args.token_ttl} if args.token_ttl is not None else {}))
    except ValueError as exc:
        sys.stderr.write(f"pytest-cua org serve: {exc}\n")
        return 2
    creds = server.start()
    if args.write_entry:
        from pytest_cua.orgs.pool import OrgsFileError, write_entry

        name = args.name or _default_name(data_dir)
        try:
            write_entry(args.write_entry, name, creds, kind=args.entry_kind)
        except (OrgsFileError, OSError) as exc:
            server.stop()
            sys.stderr.write(f"pytest-cua org serve: --write-entry {args.write_entry}: {exc}\n")
            return 2
    sys.stdout.write(creds.to_json() + "\n")
    sys.stdout.flush()
    server.serve_forever()
    return 0


def _default_name(data_dir: Path) -> str:
    """The entry name when ``--name`` is not given: the data folder's name (letters, digits, ``._-``)."""
    import re

    name = re.sub(r"[^A-Za-z0-9._-]+", "-", data_dir.name).strip("-._") or "localorg"
    return name[:64]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``org serve`` to the ``pytest-cua`` command."""
    org = subparsers.add_parser("org", help="the embedded Salesforce-compatible org")
    actions = org.add_subparsers(dest="org_action", metavar="ACTION")
    sv = actions.add_parser("serve", help="serve the org over HTTPS; prints one JSON line with credentials")
    sv.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    sv.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    sv.add_argument("--data-dir", default=None, help=f"TLS files and credentials (default {default_data_dir()})")
    sv.add_argument("--fixtures", default=None, help="schema and seed directory (default "
                    "$PYTEST_CUA_LOCALORG_FIXTURES, else the package's fixtures/localorg)")
    sv.add_argument("--no-ui", action="store_true", help="serve the API only (no web UI pages)")
    sv.add_argument("--write-entry", default=None, metavar="FILE",
                    help="also add this org to the orgs file FILE (for --cua-orgs; created with mode 0600, other "
                         "entries kept)")
    sv.add_argument("--name", default=None, help="the org's name in --write-entry's file (default: the data "
                    "folder's name)")
    sv.add_argument("--entry-kind", default="localorg", choices=("localorg", "salesforce"),
                    help="the kind of --write-entry's entry: 'localorg' (rolled back through the org's control "
                         "resource) or 'salesforce' (treated as a real org: client credentials, rolled back over "
                         "the standard APIs only)")
    sv.add_argument("--daily-api-requests", type=int, default=None, metavar="N",
                    help="the org's DailyApiRequests limit (default 1000000); calls beyond it fail with "
                         "REQUEST_LIMIT_EXCEEDED")
    sv.add_argument("--token-ttl", type=float, default=None, metavar="SECONDS",
                    help="how long access tokens and browser sessions live (default: 12 hours)")
    sv.add_argument("--jwt-cert", default=None, metavar="PEM",
                    help="the connected app's certificate for the OAuth JWT bearer flow")
    sv.add_argument("-v", "--verbose", action="store_true", help="log requests (paths only, never query strings)")
    sv.set_defaults(func=serve)
    org.set_defaults(func=lambda args: (org.print_help(), 2)[1])
