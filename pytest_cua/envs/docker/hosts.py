"""Docker daemons to place desktops on: ``--cua-docker-hosts local,tcp://HOST:2376,ssh://USER@HOST``.

- A host is ``local`` (the daemon of ``DOCKER_HOST`` or the local socket), ``unix:///PATH``, ``tcp://HOST:PORT``
  (always TLS with a client certificate) or ``ssh://[USER@]HOST`` (the ``ssh`` program, as ``docker -H ssh://``).
- TLS: ``--cua-docker-tls-dir DIR`` (ini ``cua_docker_tls_dir``, else ``$DOCKER_CERT_PATH``) holds ``ca.pem``,
  ``cert.pem`` and ``key.pem`` (the ``DOCKER_CERT_PATH`` layout); a subfolder ``DIR/HOST:PORT`` or ``DIR/HOST``
  holds another host's own. The daemon's certificate must name the host (checked against ``ca.pem``).
- Placement (``place``): each worker's desktop goes to the answering host with the fewest running pytest-cua
  containers; ties go round the list starting at the worker's number, so workers that start together spread.
- The image (``ensure_image``): present when an image of that name carries the recipe's hash
  (``pytest-cua.recipe-hash``); otherwise the local daemon's copy is sent (``docker save`` there, ``docker load``
  on the host, streamed), built first from its recipe when the local copy is missing or outdated, or, with no
  local daemon, built here and imported on the host directly.
- Leftovers: every environment records the hosts its run used (``record_run_host``), so the sweep after a dead
  worker covers them (``run_hosts``); ``pytest-cua docker sweep --hosts ...`` sweeps a given list.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import ssl
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from pytest_cua.envs.docker.images import file_lock

LOCAL = "local"
TLS_FILES = ("ca.pem", "cert.pem", "key.pem")
PROBE_TIMEOUT_S = 10.0
MIN_API_VERSION = "1.24"


class DockerHostError(RuntimeError):
    """A host could not be used: the message names the host and the option or folder involved."""


@dataclass(frozen=True)
class DockerHost:
    """One daemon of ``--cua-docker-hosts``."""

    url: str  # as written: local, unix:///path, tcp://host:port, ssh://user@host
    tls_dir: Path | None = None  # the folder with ca.pem, cert.pem, key.pem (tcp only)
    where: str = "--cua-docker-hosts"

    @property
    def is_local(self) -> bool:
        return self.url == LOCAL

    def to_json(self) -> dict[str, Any]:
        return {"url": self.url, "tls_dir": str(self.tls_dir) if self.tls_dir else None}


def _tls_dir_for(url: str, tls_dir: Path) -> Path:
    netloc = url.split("://", 1)[1].rstrip("/")
    for name in (netloc, netloc.rsplit(":", 1)[0]):
        if (tls_dir / name).is_dir():
            return tls_dir / name
    return tls_dir


def _check_tls_dir(folder: Path, url: str, where: str) -> None:
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    missing = [name for name in TLS_FILES if not (folder / name).is_file()]
    if missing:
        raise DockerHostError(f"{where}: docker host {url}: the TLS folder {folder} lacks {', '.join(missing)} "
                              f"(it needs ca.pem, cert.pem and key.pem, the DOCKER_CERT_PATH layout)")
    for name in ("ca.pem", "cert.pem"):
        try:
            x509.load_pem_x509_certificate((folder / name).read_bytes())
        except (OSError, ValueError) as exc:
            raise DockerHostError(f"{where}: docker host {url}: {folder / name} is not a PEM certificate "
                                  f"({exc})") from None
    try:
        serialization.load_pem_private_key((folder / "key.pem").read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as exc:
        raise DockerHostError(f"{where}: docker host {url}: {folder / 'key.pem'} is not an unencrypted PEM private "
                              f"key ({type(exc).__name__})") from None


def parse_hosts(text: str, tls_dir: str | None = None, *, where: str = "--cua-docker-hosts",
                tls_where: str = "--cua-docker-tls-dir") -> list[DockerHost]:
    """The hosts of a comma-separated list; a bad entry or TLS folder raises ``DockerHostError`` naming it."""
    if not tls_dir and os.environ.get("DOCKER_CERT_PATH"):
        tls_dir, tls_where = os.environ["DOCKER_CERT_PATH"], "DOCKER_CERT_PATH"
    hosts: list[DockerHost] = []
    for raw in (part.strip() for part in text.split(",")):
        if not raw:
            continue
        if raw in (LOCAL, "default"):
            url = LOCAL
            folder = None
        elif re.fullmatch(r"tcp://[^/:\s]+:\d{1,5}/?", raw):
            url = raw.rstrip("/")
            if not tls_dir:
                raise DockerHostError(f"{where}: docker host {url} needs TLS client certificates: give "
                                      f"{tls_where} DIR (ca.pem, cert.pem, key.pem) or set DOCKER_CERT_PATH "
                                      f"(plain TCP to a Docker daemon is refused)")
            base = Path(tls_dir).expanduser()
            if not base.is_dir():
                raise DockerHostError(f"{tls_where}: {base} is not a folder (docker host {url} needs ca.pem, "
                                      f"cert.pem and key.pem there)")
            folder = _tls_dir_for(url, base)
            _check_tls_dir(folder, url, tls_where if folder == base else f"{tls_where} (folder {folder.name})")
        elif re.fullmatch(r"ssh://([^@/\s]+@)?[^/:\s]+(:\d{1,5})?", raw):
            url, folder = raw, None
            if shutil.which("ssh") is None:
                raise DockerHostError(f"{where}: docker host {url}: the ssh program is missing (apt-get install "
                                      f"openssh-client)")
        elif raw.startswith("unix:///"):
            url, folder = raw, None
        else:
            raise DockerHostError(f"{where}: {raw!r} is not a docker host (local, unix:///PATH, tcp://HOST:PORT "
                                  f"with TLS, or ssh://[USER@]HOST)")
        if any(h.url == url for h in hosts):
            raise DockerHostError(f"{where}: docker host {url} is listed twice")
        hosts.append(DockerHost(url, folder, where))
    if not hosts:
        raise DockerHostError(f"{where}: no docker host in {text!r}")
    return hosts


def _reason(exc: BaseException) -> str:
    """The innermost useful cause of a connection failure, in one line."""
    seen: list[BaseException] = []
    item: BaseException | None = exc
    while item is not None and item not in seen:
        seen.append(item)
        item = item.__cause__ or item.__context__
    for cause in seen:
        if isinstance(cause, ssl.SSLError):
            return f"TLS failed: {cause}"
    for cause in reversed(seen):
        if isinstance(cause, (ConnectionError, socket.timeout, socket.gaierror, TimeoutError)):
            return f"{type(cause).__name__}: {cause}"
    text = str(exc)
    if "SSLError" in text or "CERTIFICATE" in text.upper():
        return f"TLS failed: {text[-300:]}"
    return f"{type(exc).__name__}: {text[-300:]}"


def connect(host: DockerHost, timeout: float = 300.0) -> Any:
    """A docker SDK client for ``host``, its API version negotiated; ``DockerHostError`` names the host."""
    import docker
    from docker.tls import TLSConfig

    client = None
    try:
        if host.is_local:
            client = docker.from_env(version="auto", timeout=timeout)
        else:
            kwargs: dict[str, Any] = {}
            if host.url.startswith("tcp://"):
                assert host.tls_dir is not None
                d = host.tls_dir
                kwargs["tls"] = TLSConfig(client_cert=(str(d / "cert.pem"), str(d / "key.pem")),
                                          ca_cert=str(d / "ca.pem"), verify=True)
            elif host.url.startswith("ssh://"):
                kwargs["use_ssh_client"] = True
            client = docker.DockerClient(base_url=host.url, version=MIN_API_VERSION, timeout=timeout, **kwargs)
            # requests would let REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE replace the daemon's CA (and send the
            # daemon's traffic through HTTPS_PROXY): a daemon connection takes nothing from the environment
            client.api.trust_env = False
            client.api._version = client.api._retrieve_server_version()
        client.ping()
        return client
    except Exception as exc:  # noqa: BLE001 - every failure becomes one message naming the host
        if client is not None:
            client.close()
        why = _reason(exc)
        certs = f" (client certificate from {host.tls_dir})" if host.tls_dir and "TLS" in why else ""
        raise DockerHostError(f"docker host {host.url} ({host.where}): not reachable: {why}{certs}") from None


def worker_number(worker_id: str) -> int:
    m = re.search(r"(\d+)$", worker_id)
    return int(m.group(1)) if m else 0


@dataclass
class Placement:
    host: DockerHost
    client: Any
    running: dict[str, int]  # running pytest-cua containers per answering host, when placed
    unreachable: dict[str, str]  # host -> why, for the hosts skipped


def place(hosts: Sequence[DockerHost], worker_id: str, *, before: Callable[[DockerHost, Any], None] | None = None,
          timeout: float = 300.0) -> Placement:
    """The host for this worker's desktop: the answering host with the fewest running pytest-cua containers.
    ``before(host, client)`` runs for every answering host (the sweep of dead runs' leftovers)."""
    from pytest_cua.envs.docker.leftovers import LABEL_RUN

    running: dict[str, int] = {}
    unreachable: dict[str, str] = {}
    order: list[tuple[int, int, DockerHost]] = []
    start = worker_number(worker_id) % len(hosts)
    for i, host in enumerate(hosts):
        try:
            probe = connect(host, timeout=PROBE_TIMEOUT_S)
        except DockerHostError as exc:
            unreachable[host.url] = str(exc)
            continue
        try:
            if before is not None:
                before(host, probe)
            count = len(probe.api.containers(filters={"label": LABEL_RUN, "status": "running"}))
        except Exception as exc:  # noqa: BLE001 - answered the ping, then failed: skip it like a silent one
            unreachable[host.url] = f"docker host {host.url}: listing its containers failed: {_reason(exc)}"
            continue
        finally:
            probe.close()
        running[host.url] = count
        order.append((count, (i - start) % len(hosts), host))
    if not order:
        raise DockerHostError("no docker host answers: " + "; ".join(unreachable.values()))
    chosen = min(order, key=lambda item: item[:2])[2]
    return Placement(chosen, connect(chosen, timeout=timeout), running, unreachable)


# --- the image on a host --------------------------------------------------------------------------------------

@dataclass
class ImageOnHost:
    how: str  # present (found by recipe hash), sent (saved here, loaded there), built (imported there)
    seconds: float = 0.0
    bytes: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"how": self.how, "seconds": round(self.seconds, 2), "mb": round(self.bytes / 1e6, 1)}


def send_image(source: Any, target: Any, image: str, host: str) -> tuple[float, int]:
    """Stream ``image`` from the ``source`` daemon (``docker save``) into ``target`` (``docker load``); returns
    the seconds and bytes."""
    started = time.monotonic()
    sent = 0

    def chunks() -> Iterator[bytes]:
        nonlocal sent
        for chunk in source.api.get_image(image):
            sent += len(chunk)
            yield chunk

    try:
        for item in target.api.load_image(chunks()):
            if isinstance(item, dict) and item.get("error"):
                raise DockerHostError(f"docker host {host}: loading image {image!r} failed: {item['error']}")
    except DockerHostError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise DockerHostError(f"docker host {host}: sending image {image!r} ({sent / 1e6:.0f} MB sent) failed: "
                              f"{_reason(exc)}") from None
    return time.monotonic() - started, sent


def _image_id(client: Any, image: str) -> str | None:
    import docker.errors

    try:
        return str(client.images.get(image).id)
    except docker.errors.ImageNotFound:
        return None


def _local_client() -> tuple[Any, str]:
    try:
        return connect(DockerHost(LOCAL), timeout=300.0), ""
    except DockerHostError as exc:
        return None, str(exc)


def ensure_image(client: Any, host: DockerHost, image: str, *, build: str = "auto", recipe_hash: str | None = None,
                 progress: Callable[[str], None] = lambda line: None) -> ImageOnHost:
    """Make ``image`` present on ``host`` (whose client is ``client``), matched by its recipe's hash (the recipe
    of the image's name in fixtures/images/; ``recipe_hash`` instead names the hash wanted and builds nothing).
    Without a recipe any image of that name will do."""
    from pytest_cua.envs.docker.images import build_image, image_state, recipe_of
    from pytest_cua.envs.docker.recipes import Recipe

    name = image.split(":")[0]
    recipe: Recipe | None = recipe_of(image)[0] if recipe_hash is None else None
    want = recipe_hash or (recipe.recipe_hash() if recipe is not None else None)

    def matches(c: Any) -> bool:
        return image_state(c, image, want) == "current"

    if matches(client):
        return ImageOnHost("present")
    with file_lock(f"image-{host.url}-{image}"):  # one transfer per host and image across this machine's workers
        if matches(client):
            return ImageOnHost("present")
        # the local daemon itself: built from the recipe in place, never sent to itself
        local, why = _local_client() if not host.is_local else (None, "it is the host itself")
        try:
            if local is not None and not matches(local) and recipe is not None and build == "auto":
                with file_lock("build"):
                    build_image(recipe, client=local, progress=progress)
            if local is not None and matches(local):
                progress(f"{host.url}: sending {image} (recipe hash {want})")
                outdated = _image_id(client, image)
                seconds, size = send_image(local, client, image, host.url)
                if not matches(client):
                    raise DockerHostError(f"docker host {host.url}: image {image!r} was sent but does not carry "
                                          f"recipe hash {want}")
                if outdated is not None and outdated != _image_id(client, image):
                    try:  # the outdated copy lost its name: do not leave it taking the host's disk
                        client.images.remove(outdated)
                    except Exception:  # noqa: BLE001 - still used by a container: left to the host's owner
                        pass
                return ImageOnHost("sent", seconds, size)
        finally:
            if local is not None:
                local.close()
        if recipe is not None and build == "auto":
            started = time.monotonic()
            with file_lock("build"):
                build_image(recipe, client=client, progress=progress)
            return ImageOnHost("built", time.monotonic() - started)
    wanted = f"{image!r}" + (f" with recipe hash {want}" if want else "")
    local_state = ("no other daemon" if host.is_local else f"the local daemon is not reachable ({why})"
                   if local is None else "the local daemon has none")
    hint = (f"build it here with: pytest-cua image build {name} (it is then sent), or allow --cua-docker-build auto"
            if recipe is not None else "no recipe of that name to build it from")
    raise DockerHostError(f"docker host {host.url}: no image {wanted}; {local_state} to send; {hint}")


# --- the hosts a run used (for the sweep after a dead worker) ------------------------------------------------------

def _run_file(run_id: str) -> Path:
    folder = Path(os.environ.get("PYTEST_CUA_DOCKER_RUNS", Path(tempfile.gettempdir()) / "pytest-cua-docker-runs"))
    return folder / f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', run_id)}.jsonl"


def record_run_host(run_id: str, host: DockerHost) -> None:
    """Note that run ``run_id`` placed something on ``host`` (one JSON line per host; appended atomically)."""
    if host.is_local or any(h.url == host.url for h in run_hosts(run_id)):
        return
    path = _run_file(run_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(host.to_json()) + "\n")


def run_hosts(run_id: str) -> list[DockerHost]:
    """The non-local hosts run ``run_id`` used (from ``record_run_host``), in the order first used."""
    try:
        lines = _run_file(run_id).read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    out: list[DockerHost] = []
    for line in lines:
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict) and isinstance(item.get("url"), str) and all(h.url != item["url"] for h in out):
            tls = item.get("tls_dir")
            out.append(DockerHost(item["url"], Path(tls) if tls else None, f"run {run_id}"))
    return out
