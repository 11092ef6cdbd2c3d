"""Orgs served elsewhere: the orgs file (``--cua-orgs FILE``) and one lease per pytest process.

The orgs file is JSON, one entry per org under its name::

    {"version": 1,
     "orgs": {
       "org-a": {"kind": "localorg", "instance_url": "https://127.0.0.1:8443", "client_id": "...",
                 "client_secret": "...", "username": "admin@...", "password": "...", "ca_path": "/.../ca.pem"},
       "sandbox": {"kind": "salesforce", "instance_url": "https://x.my.salesforce.com", "client_key": "...",
                   "client_secret": "...", "username": "..."}}}

``kind: localorg`` is an embedded org served by ``pytest-cua org serve`` (``--write-entry FILE --name NAME``
writes that entry, file mode 0600), rolled back through its control resource. ``kind: salesforce`` is a real
org (or one treated as such), reached and rolled back over the standard APIs only (``pytest_cua.orgs.realorg``); its
fields are ``pytest_cua.orgs.auth.OrgLogin``'s (instance_url, username, auth and the auth's fields, ca_path).
SCUBA's ``orgs/orgs_info.json`` is read as it is (``{"ALIAS": {"instance", "client_key", "client_secret",
"username"}}``): each alias is a ``salesforce`` entry. Every error names the file and the entry.

Besides a file, ``--cua-org sf:ALIAS`` names an org of the Salesforce CLI and ``--cua-org env`` the org of the
``PYTEST_CUA_ORG_*`` variables.

Leases: each pytest process (xdist worker) that needs an org takes one with an exclusive ``fcntl.flock`` on a
lock file in the lease folder (``$PYTEST_CUA_ORG_LEASES``, default ``<tmp>/pytest-cua-org-leases-<uid>``),
one file per org (named after it and its instance URL). The lock goes with the process, however it ends; the
file says who held it and whether it was given back clean. A lease found ``held`` (its holder died) or
``dirty`` (given back after a failed rollback) is stale: the new holder resets the org to its baseline (the
seed at serve time) before using it.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import re
import socket
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Sequence

if TYPE_CHECKING:
    from pytest_cua.orgs.localorg.server import OrgCredentials
    from pytest_cua.orgs.auth import OrgLogin

ORGS_FILE_VERSION = 1
KINDS = {"localorg": ("instance_url", "client_id", "client_secret", "username", "password", "ca_path"),
         "salesforce": ("instance_url", "client_key", "client_secret", "username")}
IMPLEMENTED = ("localorg", "salesforce")
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
LEASES_ENV = "PYTEST_CUA_ORG_LEASES"
DEFAULT_WAIT_S = 30.0


class OrgsFileError(ValueError):
    """The orgs file cannot be used; the message names the file and, where it applies, the entry."""


@dataclass(frozen=True)
class OrgEntry:
    """One org of the orgs file. ``fields`` holds its settings, secrets included: never log them."""

    name: str
    kind: str
    source: Path | str
    fields: dict[str, str] = field(repr=False, compare=False)
    login: "OrgLogin | None" = field(default=None, repr=False, compare=False)  # kind salesforce

    @property
    def instance_url(self) -> str:
        return self.fields["instance_url"]

    def credentials(self) -> "OrgCredentials":
        from pytest_cua.orgs.localorg.server import OrgCredentials

        f = self.fields
        return OrgCredentials(f["instance_url"].rstrip("/"), f["client_id"], f["client_secret"], f["username"],
                              f["password"], f["ca_path"])

    def secrets(self) -> list[str]:
        if self.login is not None:
            return self.login.secrets()
        return [self.fields[k] for k in ("client_secret", "password", "client_key") if self.fields.get(k)]

    def __repr__(self) -> str:
        return f"OrgEntry(name={self.name!r}, kind={self.kind!r}, instance_url={self.fields.get('instance_url')!r})"


def load_orgs(path: str | Path) -> list[OrgEntry]:
    """The entries of an orgs file, sorted by name; ``OrgsFileError`` naming file and entry otherwise."""
    p = Path(path).expanduser()
    try:
        raw = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise OrgsFileError(f"orgs file {p}: no such file") from None
    except OSError as exc:
        raise OrgsFileError(f"orgs file {p}: cannot be read: {exc.strerror or exc}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise OrgsFileError(f"orgs file {p}: not valid JSON: {exc}") from None
    if _scuba_shape(raw):
        return _scuba_entries(p, raw)
    if not isinstance(raw, dict) or not isinstance(raw.get("orgs"), dict):
        raise OrgsFileError(f'orgs file {p}: expected {{"version": 1, "orgs": {{"NAME": {{"kind": ...}}, ...}}}}')
    if raw.get("version", ORGS_FILE_VERSION) != ORGS_FILE_VERSION:
        raise OrgsFileError(f"orgs file {p}: version {raw.get('version')!r} is not supported (this pytest-cua "
                            f"reads version {ORGS_FILE_VERSION})")
    if not raw["orgs"]:
        raise OrgsFileError(f"orgs file {p}: lists no org")
    entries = []
    for name in sorted(raw["orgs"]):
        entries.append(_entry(p, name, raw["orgs"][name]))
    seen: dict[str, str] = {}
    for e in entries:
        url = e.instance_url.rstrip("/").lower()
        if url in seen:
            raise OrgsFileError(f"orgs file {p}: entries {seen[url]!r} and {e.name!r} are the same org "
                                f"({e.instance_url}): one lease per org needs one entry per org")
        seen[url] = e.name
    return entries


def _scuba_shape(raw: Any) -> bool:
    """Whether ``raw`` is SCUBA's orgs_info.json: aliases to objects with ``instance`` / ``client_key``."""
    return isinstance(raw, dict) and bool(raw) and "orgs" not in raw and all(
        isinstance(v, dict) and ("instance" in v or "client_key" in v) for v in raw.values())


def _scuba_entries(path: Path, raw: dict[str, Any]) -> list[OrgEntry]:
    out = []
    for name in sorted(raw):
        if not NAME_RE.match(name):
            raise OrgsFileError(f"orgs file {path}, entry {name!r}: a name is 1-64 letters, digits, '.', '_' or "
                                f"'-', starting with a letter or digit")
        out.append(_salesforce_entry(path, name, raw[name]))
    return out


def _salesforce_entry(path: Path, name: str, value: dict[str, Any]) -> OrgEntry:
    from pytest_cua.orgs.auth import OrgLogin, OrgLoginError

    try:
        login = OrgLogin.from_fields(name, value, f"orgs file {path}", base=path.parent)
    except OrgLoginError as exc:
        raise OrgsFileError(str(exc)) from None
    return OrgEntry(name, "salesforce", path, {"instance_url": login.instance_url}, login)


def _entry(path: Path, name: str, value: Any) -> OrgEntry:
    where = f"orgs file {path}, entry {name!r}"
    if not NAME_RE.match(name):
        raise OrgsFileError(f"{where}: a name is 1-64 letters, digits, '.', '_' or '-', starting with a letter "
                            f"or digit")
    if not isinstance(value, dict):
        raise OrgsFileError(f"{where}: expected an object with \"kind\" and its fields")
    kind = value.get("kind")
    if kind not in KINDS:
        raise OrgsFileError(f"{where}: unknown kind {kind!r}; known kinds: " + ", ".join(
            k if k in IMPLEMENTED else f"{k} (not implemented yet)" for k in KINDS))
    if kind == "salesforce":
        return _salesforce_entry(path, name, value)
    missing = [k for k in KINDS[kind] if not isinstance(value.get(k), str) or not value[k].strip()]
    if missing:
        raise OrgsFileError(f"{where}: kind {kind!r} needs the field(s) {', '.join(missing)} (non-empty strings)")
    fields = {k: str(value[k]) for k in KINDS[kind]}
    if not fields["instance_url"].startswith("https://"):
        raise OrgsFileError(f"{where}: instance_url must be an https:// URL, got {fields['instance_url']!r}")
    ca = Path(fields["ca_path"]).expanduser()
    if not ca.is_absolute():
        ca = path.parent / ca
    if not ca.is_file():
        raise OrgsFileError(f"{where}: ca_path {str(ca)!r} is not a file")
    fields["ca_path"] = str(ca)
    return OrgEntry(name, str(kind), path, fields)


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def write_entry(path: str | Path, name: str, creds: "OrgCredentials", kind: str = "localorg") -> Path:
    """Add or replace the entry ``name`` of the orgs file at ``path`` (created with mode 0600; written whole and
    renamed into place under a lock, so several ``org serve`` may share one file). ``kind`` ``salesforce``
    writes the entry of a real org's shape (client credentials, the CA of the org): the org is then reached
    and rolled back over the standard APIs only."""
    p = Path(path).expanduser().resolve()
    if not NAME_RE.match(name):
        raise OrgsFileError(f"orgs file {p}: entry name {name!r}: a name is 1-64 letters, digits, '.', '_' or '-'")
    p.parent.mkdir(parents=True, exist_ok=True)
    with _file_lock(p.with_name(p.name + ".lock")):
        data: dict[str, Any] = {"version": ORGS_FILE_VERSION, "orgs": {}}
        if p.exists() and p.read_text(encoding="utf-8").strip():
            try:
                data = json.loads(p.read_text(encoding="utf-8"))
            except json.JSONDecodeError as exc:
                raise OrgsFileError(f"orgs file {p}: not valid JSON ({exc}); not overwritten") from None
            if not isinstance(data, dict) or not isinstance(data.get("orgs"), dict):
                raise OrgsFileError(f"orgs file {p}: has no \"orgs\" object; not overwritten")
        if kind == "salesforce":
            data["orgs"][name] = {"kind": "salesforce", "instance_url": creds.instance_url,
                                  "client_key": creds.client_id, "client_secret": creds.client_secret,
                                  "username": creds.username, "ca_path": str(Path(creds.ca_path).resolve())}
        else:
            data["orgs"][name] = {"kind": "localorg", "instance_url": creds.instance_url,
                                  "client_id": creds.client_id, "client_secret": creds.client_secret,
                                  "username": creds.username, "password": creds.password,
                                  "ca_path": str(Path(creds.ca_path).resolve())}
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", dir=p.parent)  # mkstemp: mode 0600
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh, indent=2)
            os.chmod(tmp, 0o600)
            os.replace(tmp, p)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    return p


# ---------------------------------------------------------------------------------------------- leases

def lease_dir() -> Path:
    """The folder of the lock files (``$PYTEST_CUA_ORG_LEASES`` or ``<tmp>/pytest-cua-org-leases-<uid>``)."""
    d = Path(os.environ.get(LEASES_ENV) or Path(tempfile.gettempdir()) / f"pytest-cua-org-leases-{os.getuid()}")
    d.mkdir(mode=0o700, parents=True, exist_ok=True)
    return d


def lock_path(entry: OrgEntry, folder: Path | None = None) -> Path:
    digest = hashlib.sha256(entry.instance_url.rstrip("/").lower().encode()).hexdigest()[:16]
    return (folder or lease_dir()) / f"{entry.name}-{digest}.lock"


def pid_alive(pid: int) -> bool:
    """Whether a process of this id exists (one of another user counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass
class OrgLease:
    """This process's hold on one org: the lock file's descriptor, and what the earlier holder left."""

    entry: OrgEntry
    path: Path
    fd: int | None
    previous: dict[str, Any]  # the lock file's record before this lease (empty for a first lease)

    @property
    def stale(self) -> bool:
        """The earlier holder died holding it (``held``) or gave it back after a failed rollback (``dirty``)."""
        return self.previous.get("state") in ("held", "dirty")

    def stale_reason(self) -> str:
        p = self.previous
        if p.get("state") == "dirty":
            return (f"worker {p.get('worker')} (pid {p.get('pid')}, run {p.get('run')}) gave it back after a failed "
                    f"rollback")
        pid = p.get("pid")
        gone = "is gone" if isinstance(pid, int) and (p.get("host") != socket.gethostname() or not pid_alive(pid)) \
            else "no longer holds the lock"
        return f"worker {p.get('worker')} (pid {pid}, run {p.get('run')}) {gone} without giving it back"

    def _write(self, record: dict[str, Any]) -> None:
        assert self.fd is not None
        data = json.dumps(record).encode()
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, data, 0)
        os.fsync(self.fd)

    def release(self, clean: bool = True) -> None:
        """Give the org back (``clean``: its last rollback left nothing); safe to call twice."""
        if self.fd is None:
            return
        try:
            record = _read_record(self.fd)
            record.update(state="released" if clean else "dirty", released=time.time())
            self._write(record)
        finally:
            fd, self.fd = self.fd, None
            os.close(fd)  # drops the flock


def _read_record(fd: int) -> dict[str, Any]:
    raw = os.pread(fd, 65536, 0)
    try:
        record = json.loads(raw) if raw.strip() else {}
    except (json.JSONDecodeError, UnicodeDecodeError):
        return {"state": "held"}  # torn by a crash while it was being written: treat as stale
    return record if isinstance(record, dict) else {"state": "held"}


def try_lease(entry: OrgEntry, *, worker_id: str, run_id: str, folder: Path | None = None) -> OrgLease | None:
    """Take ``entry``'s lock without waiting; None when another process holds it."""
    path = lock_path(entry, folder)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(fd)
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return None
        raise
    lease = OrgLease(entry, path, fd, _read_record(fd))
    lease._write({"org": entry.name, "pid": os.getpid(), "host": socket.gethostname(), "worker": worker_id,
                  "run": run_id, "since": time.time(), "state": "held"})
    return lease


def holder(entry: OrgEntry, folder: Path | None = None) -> dict[str, Any]:
    """What the lock file of ``entry`` says (who holds or held it), without taking it."""
    try:
        raw = lock_path(entry, folder).read_bytes()
        data = json.loads(raw) if raw.strip() else {}
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def lease_one(entries: Sequence[OrgEntry], *, worker_id: str, run_id: str, wait_s: float = DEFAULT_WAIT_S,
              folder: Path | None = None, source: str = "") -> OrgLease:
    """A lease of one of ``entries``: worker gwN tries entry N (modulo the count) first, then the others, and
    waits up to ``wait_s`` for one to come free. ``LookupError`` naming the holders otherwise."""
    if not entries:
        raise LookupError(f"{source or 'orgs file'}: no org to lease")
    m = re.match(r"^gw(\d+)$", worker_id)
    start = int(m.group(1)) % len(entries) if m else 0
    order = list(entries[start:]) + list(entries[:start])
    deadline = time.monotonic() + wait_s
    while True:
        for entry in order:
            got = try_lease(entry, worker_id=worker_id, run_id=run_id, folder=folder)
            if got is not None:
                return got
        if time.monotonic() >= deadline:
            held = "; ".join(f"{e.name}: worker {h.get('worker')} pid {h.get('pid')} run {h.get('run')}"
                             for e in order for h in [holder(e, folder)])
            raise LookupError(f"{source or 'orgs file'}: every org is leased by another process after waiting "
                              f"{wait_s:.0f} s ({held}); each worker needs an org of its own")
        time.sleep(0.25)


# ---------------------------------------------------------------------------------------------- options

@dataclass(frozen=True)
class OrgChoice:
    """What ``--cua-org`` / ``--cua-orgs`` ask for: ``local`` (an embedded org per worker), ``pool`` (any org
    of the file) or one named org of the file."""

    which: str
    orgs_file: Path | None
    entries: tuple[OrgEntry, ...] = ()

    @property
    def remote(self) -> bool:
        return self.which != "local"

    def candidates(self) -> list[OrgEntry]:
        if self.which == "pool":
            return list(self.entries)
        if self.orgs_file is None:  # env, sf:ALIAS
            return list(self.entries)
        return [e for e in self.entries if e.name == self.which]


def _ini(config: Any, name: str) -> str:
    try:
        value = config.getini(name)
    except (AttributeError, ValueError):
        return ""
    return str(value or "").strip()


def resolve_choice(config: Any) -> OrgChoice:
    """``--cua-org`` and ``--cua-orgs`` (ini ``cua_orgs``, relative to the ini file's folder), validated;
    ``OrgsFileError`` / ``ValueError`` naming the option, file and entry."""
    option = getattr(config, "option", config)
    which = getattr(option, "cua_org", None)
    path = getattr(option, "cua_orgs", None)
    source = "--cua-orgs"
    if not path:
        path = _ini(config, "cua_orgs") if hasattr(config, "getini") else ""
        source = "ini cua_orgs"
        if path and getattr(config, "inipath", None) is not None and not Path(path).is_absolute():
            path = str(Path(config.inipath).parent / path)
    which = str(which or ("pool" if path else "local"))
    if which == "local":
        return OrgChoice("local", None)
    if which == "env" or which.startswith("sf:"):
        from pytest_cua.orgs.auth import OrgLogin, OrgLoginError

        try:
            login = OrgLogin.from_env() if which == "env" else OrgLogin.from_sf_alias(which[3:])
        except OrgLoginError as exc:
            raise OrgsFileError(str(exc)) from None
        return OrgChoice(which, None, (OrgEntry(login.name.replace(":", "-"), "salesforce", login.source,
                                                {"instance_url": login.instance_url}, login),))
    if not path:
        raise ValueError(f"--cua-org {which}: the orgs come from an orgs file: give --cua-orgs FILE (or ini "
                         f"cua_orgs); --cua-org local (the default) runs an embedded org in every worker")
    entries = tuple(load_orgs(path))
    choice = OrgChoice(which, Path(path), entries)
    if which != "pool" and not choice.candidates():
        raise ValueError(f"--cua-org {which}: no org named {which!r} in {source} {path} (it lists: "
                         f"{', '.join(e.name for e in entries)}); or give --cua-org pool")
    return choice


def worker_count(config: Any) -> int:
    """How many pytest processes will lease an org: xdist's ``-n`` (resolved), else 1."""
    option = getattr(config, "option", config)
    n = getattr(option, "numprocesses", None)
    if isinstance(n, int) and n > 0:
        most = getattr(option, "maxprocesses", None)
        return min(n, most) if isinstance(most, int) and most > 0 else n
    return 1


def check_enough(choice: OrgChoice, workers: int) -> None:
    """A usage error before any worker starts when the file has fewer orgs than workers."""
    if not choice.remote:
        return
    have = len(choice.candidates())
    if workers > have:
        what = f"--cua-org {choice.which} names one org" if choice.which != "pool" else \
            f"--cua-orgs {choice.orgs_file} lists {have} org(s) ({', '.join(e.name for e in choice.entries)})"
        raise ValueError(f"{what} but -n {workers} starts {workers} workers, and each worker leases an org of its "
                         f"own: run with -n {have} or fewer, or add orgs to the file")
