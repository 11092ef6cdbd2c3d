"""The Salesforce CLI (``sf``, npm ``@salesforce/cli``) against an org, each client with a private state folder.

``scripts/ensure_sf.sh`` installs the CLI and the Node.js it needs into ``/opt/pytest-cua/sf-cli``
(``$PYTEST_CUA_SF_PREFIX``). ``find_sf()`` finds it; ``SfCli`` runs it::

    cli = SfCli(home=tmp_path / "sf-home", ca_path=creds.ca_path)       # nothing shared with other clients
    username = cli.login_access_token(creds.instance_url, token)        # sf org login access-token --no-prompt
    cli.json("data", "query", "--query", "SELECT Id FROM Account", "-o", username)["result"]["records"]

Each ``SfCli`` has its own ``HOME`` (the CLI's ``~/.sf`` and ``~/.sfdx``: auth files, aliases, config, logs),
telemetry and update checks off, and trusts the org's private CA through ``NODE_EXTRA_CA_CERTS``. The access
token goes to the CLI in ``SF_ACCESS_TOKEN`` only (never in argv), and the environment's own ``SF_*`` / ``SFDX_*``
variables are dropped so a developer's settings cannot leak in. ``environment()`` is that environment, for
programs that shell out to ``sf`` themselves (SCUBA's evaluation).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, Mapping, Sequence

SF_ENV = "PYTEST_CUA_SF"
PREFIX_ENV = "PYTEST_CUA_SF_PREFIX"
DEFAULT_PREFIX = Path("/opt/pytest-cua/sf-cli")
INSTALL_HINT = "install it with: bash scripts/ensure_sf.sh"
DEFAULT_TIMEOUT = 180.0


class SfCliError(RuntimeError):
    """A CLI command failed: the command (without secrets), its exit code and the CLI's message."""

    def __init__(self, args: Sequence[str], code: int, message: str) -> None:
        self.args_shown = list(args)
        self.code = code
        self.message = message
        super().__init__(f"sf {' '.join(args)} failed (exit {code}): {message}")


def prefix() -> Path:
    """Where ``scripts/ensure_sf.sh`` installs the CLI."""
    return Path(os.environ.get(PREFIX_ENV) or DEFAULT_PREFIX)


def find_sf() -> Path | None:
    """The ``sf`` executable: ``$PYTEST_CUA_SF``, else ``PREFIX/bin/sf``, else ``sf`` on PATH; None when absent."""
    override = os.environ.get(SF_ENV)
    if override:
        path = Path(override)
        return path if path.is_file() else None
    installed = prefix() / "bin" / "sf"
    if installed.is_file():
        return installed
    on_path = shutil.which("sf")
    return Path(on_path) if on_path else None


def directory_names(sf: Path | None = None) -> dict[str, str]:
    """Metadata type -> the folder the CLI retrieves it into (``FlexiPage`` -> ``flexipages``), read from the
    installed CLI's own registry (``@salesforce/source-deploy-retrieve``); empty when it cannot be found."""
    exe = sf or find_sf()
    if exe is None:
        return {}
    root = Path(os.path.realpath(exe)).parents[1]
    for path in sorted(root.glob("**/source-deploy-retrieve/lib/src/registry/metadataRegistry.json")):
        try:
            types = json.loads(path.read_text(encoding="utf-8")).get("types", {})
        except (OSError, ValueError):
            continue
        return {t["name"]: t["directoryName"] for t in types.values()
                if isinstance(t, dict) and t.get("name") and t.get("directoryName")}
    return {}


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pytest-cua" / "sf-node-compile-cache"


class SfCli:
    """One CLI client: a private state folder ``home``, the org's CA, the CLI at ``sf`` (default ``find_sf()``)."""

    def __init__(self, home: str | Path, ca_path: str | Path | None = None, *, sf: str | Path | None = None,
                 timeout: float = DEFAULT_TIMEOUT, base_env: Mapping[str, str] | None = None) -> None:
        found = Path(sf) if sf is not None else find_sf()
        if found is None or not found.is_file():
            where = f"{SF_ENV}={os.environ[SF_ENV]}" if os.environ.get(SF_ENV) else f"{prefix() / 'bin' / 'sf'}"
            raise FileNotFoundError(f"the Salesforce CLI is not installed (looked for {where} and sf on PATH); "
                                    f"{INSTALL_HINT}")
        self.sf = found
        self.home = Path(home)
        self.home.mkdir(parents=True, exist_ok=True)
        self.ca_path = str(ca_path) if ca_path else None
        self.timeout = timeout
        self._base_env = dict(os.environ if base_env is None else base_env)

    def environment(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment the CLI runs in (``extra`` on top: e.g. ``SF_ACCESS_TOKEN``)."""
        env = {k: v for k, v in self._base_env.items()
               if not (k.startswith("SF_") or k.startswith("SFDX_") or k in ("NODE_OPTIONS", "NODE_EXTRA_CA_CERTS"))}
        home = str(self.home)
        env.update({
            "HOME": home,
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_DATA_HOME": str(self.home / ".local" / "share"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "PATH": f"{self.sf.parent}{os.pathsep}{self._base_env.get('PATH', os.defpath)}",
            "SF_DISABLE_TELEMETRY": "true", "SFDX_DISABLE_TELEMETRY": "true",
            "SF_AUTOUPDATE_DISABLE": "true", "SFDX_AUTOUPDATE_DISABLE": "true",
            "SF_DISABLE_AUTOUPDATE": "true", "SFDX_DISABLE_AUTOUPDATE": "true",  # oclif plugin-update reads these
            "SF_SKIP_NEW_VERSION_CHECK": "true", "SF_HIDE_RELEASE_NOTES": "true", "SF_HIDE_RELEASE_NOTES_FOOTER": "true",
            "SF_USE_PROGRESS_BAR": "false", "NO_COLOR": "1", "FORCE_COLOR": "0",
            "NODE_COMPILE_CACHE": str(_cache_dir()),
        })
        if self.ca_path:
            env["NODE_EXTRA_CA_CERTS"] = self.ca_path
        if extra:
            env.update(extra)
        return env

    def run(self, *args: str, env: Mapping[str, str] | None = None, cwd: str | Path | None = None,
            timeout: float | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
        """``sf ARGS``; raises ``SfCliError`` on a non-zero exit when ``check`` (the message from ``--json``
        output when there is one, else stderr)."""
        try:
            done = subprocess.run([str(self.sf), *args], capture_output=True, text=True, env=self.environment(env),
                                  cwd=str(cwd) if cwd else None, timeout=timeout or self.timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise SfCliError(list(args), -1, f"no answer within {timeout or self.timeout:.0f} s") from None
        if check and done.returncode != 0:
            raise SfCliError(list(args), done.returncode, _message(done))
        return done

    def json(self, *args: str, env: Mapping[str, str] | None = None, cwd: str | Path | None = None,
             timeout: float | None = None, check: bool = True) -> dict[str, Any]:
        """``sf ARGS --json`` parsed; raises ``SfCliError`` when the CLI reports a failure and ``check``."""
        done = self.run(*args, "--json", env=env, cwd=cwd, timeout=timeout, check=False)
        try:
            body = json.loads(done.stdout)
        except json.JSONDecodeError:
            raise SfCliError(list(args), done.returncode, f"not JSON on stdout: {done.stdout[-500:]!r} "
                             f"(stderr: {done.stderr[-500:]!r})") from None
        if check and (done.returncode != 0 or body.get("status", 0) != 0):
            raise SfCliError(list(args), done.returncode, str(body.get("message") or body))
        return dict(body)

    def login_access_token(self, instance_url: str, access_token: str, *, alias: str | None = None) -> str:
        """``sf org login access-token --instance-url URL --no-prompt`` (the token in ``SF_ACCESS_TOKEN``);
        returns the username the CLI stored the org under."""
        args = ["org", "login", "access-token", "--instance-url", instance_url, "--no-prompt"]
        if alias:
            args += ["--alias", alias]
        body = self.json(*args, env={"SF_ACCESS_TOKEN": access_token})
        return str(body["result"]["username"])


def _message(done: subprocess.CompletedProcess[str]) -> str:
    try:
        body = json.loads(done.stdout)
        if isinstance(body, dict) and body.get("message"):
            return str(body["message"])
    except json.JSONDecodeError:
        pass
    return (done.stderr.strip() or done.stdout.strip())[-2000:]
