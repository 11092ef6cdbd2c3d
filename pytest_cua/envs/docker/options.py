"""Settings of the Docker desktop environment: command-line options, the suite's environment options, defaults.

Resolved in this order (first wins): the ``--cua-docker-*`` option, its ini key (``cua_docker_hosts`` and
``cua_docker_tls_dir``), the suite's ``environment_options``
(``Suite(..., environment="docker", environment_options={"image": "cua-desktop-office", "memory": "3g"})``),
the defaults below.
A bad value names where it came from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import Any, Mapping

_MEMORY = re.compile(r"^\d+(\.\d+)?[kmg]?$", re.IGNORECASE)


class DockerSettingsError(ValueError):
    pass


@dataclass(frozen=True)
class DockerSettings:
    """How the desktop containers of one worker are run."""

    image: str = "cua-desktop-base"  # an image name; a recipe of that name is built when the image is missing
    memory: str = "2g"  # docker mem_limit
    cpus: float = 2.0  # docker nano_cpus / 1e9
    shm_size: str = "512m"
    ready_timeout_s: float = 60.0  # container start until the executor has the display and window manager
    window_timeout_s: float = 90.0  # start command until the task's window is mapped
    build: str = "auto"  # auto: build a missing or outdated image from its recipe; never: fail instead
    spare: bool = True  # keep a warm spare container from the snapshot so a restore does not wait
    hosts: str = ""  # docker daemons to place desktops on (pytest_cua.envs.docker.hosts); "": the local one
    tls_dir: str = ""  # ca.pem, cert.pem, key.pem for tcp:// hosts (else $DOCKER_CERT_PATH)

    def validate(self, where: Mapping[str, str]) -> "DockerSettings":
        def bad(name: str, why: str) -> DockerSettingsError:
            return DockerSettingsError(f"{where.get(name, 'default')}: {name}={getattr(self, name)!r}: {why}")

        if not isinstance(self.image, str) or not self.image:
            raise bad("image", "must be an image name")
        for name in ("memory", "shm_size"):
            if not isinstance(getattr(self, name), str) or not _MEMORY.match(getattr(self, name)):
                raise bad(name, "must be a size like 2g or 512m")
        for name in ("cpus", "ready_timeout_s", "window_timeout_s"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise bad(name, "must be a positive number")
        if self.build not in ("auto", "never"):
            raise bad("build", "must be auto or never")
        for name in ("hosts", "tls_dir"):
            if not isinstance(getattr(self, name), str):
                raise bad(name, "must be a string")
        if self.hosts:
            self.docker_hosts(where)
        return self

    def docker_hosts(self, where: Mapping[str, str] | None = None) -> list[Any]:
        """The parsed ``hosts`` (``pytest_cua.envs.docker.hosts.DockerHost``); empty for the local daemon alone."""
        from pytest_cua.envs.docker.hosts import DockerHostError, parse_hosts

        if not self.hosts:
            return []
        where = where or {}
        try:
            return parse_hosts(self.hosts, self.tls_dir or None, where=where.get("hosts", "--cua-docker-hosts"),
                               tls_where=where.get("tls_dir", "--cua-docker-tls-dir"))
        except DockerHostError as exc:
            raise DockerSettingsError(str(exc)) from None


OPTION_NAMES = {"image": "cua_docker_image", "memory": "cua_docker_memory", "cpus": "cua_docker_cpus",
                "build": "cua_docker_build", "spare": "cua_docker_spare", "hosts": "cua_docker_hosts",
                "tls_dir": "cua_docker_tls_dir"}
INI_NAMES = {"hosts": "cua_docker_hosts", "tls_dir": "cua_docker_tls_dir"}


def add_docker_options(group: Any) -> None:
    """Add the ``--cua-docker-*`` options to a pytest option group (called from pytest_cua.plugin)."""
    group.addoption("--cua-docker-image", dest="cua_docker_image", default=None, metavar="IMAGE",
                    help="desktop image for docker suites (default: the suite's docker['image'])")
    group.addoption("--cua-docker-memory", dest="cua_docker_memory", default=None, metavar="SIZE",
                    help="memory limit per desktop container, e.g. 2g (default 2g)")
    group.addoption("--cua-docker-cpus", dest="cua_docker_cpus", default=None, type=float, metavar="N",
                    help="CPU limit per desktop container (default 2)")
    group.addoption("--cua-docker-build", dest="cua_docker_build", default=None, choices=("auto", "never"),
                    help="build a missing or outdated desktop image from its recipe (auto, the default) "
                         "or fail (never)")
    group.addoption("--cua-docker-no-spare", dest="cua_docker_spare", default=None, action="store_false",
                    help="do not keep a warm spare container (slower restores, less memory)")
    group.addoption("--cua-docker-hosts", dest="cua_docker_hosts", default=None, metavar="HOSTS",
                    help="docker daemons for the desktops, comma separated: local, tcp://HOST:2376 (TLS), "
                         "ssh://USER@HOST, unix:///PATH; each worker goes to the one with the fewest running "
                         "pytest-cua containers (ini: cua_docker_hosts; default: the local daemon)")
    group.addoption("--cua-docker-tls-dir", dest="cua_docker_tls_dir", default=None, metavar="DIR",
                    help="client certificates for tcp:// hosts: DIR/ca.pem, cert.pem, key.pem, or DIR/HOST:PORT/... "
                         "per host (ini: cua_docker_tls_dir; default $DOCKER_CERT_PATH)")
    parser = getattr(group, "parser", None)  # the ini keys: pytest's OptionGroup knows its parser
    if parser is not None:
        parser.addini("cua_docker_hosts", "docker daemons for the desktops (see --cua-docker-hosts)", default="")
        parser.addini("cua_docker_tls_dir", "client certificates for tcp:// docker hosts (see --cua-docker-tls-dir)",
                      default="")


def resolve_settings(config: Any = None, suite: Any = None, **overrides: Any) -> DockerSettings:
    """Merge options, the suite's ``environment_options`` and defaults; ``overrides`` (tests) win over all."""
    values: dict[str, Any] = {}
    where: dict[str, str] = {}
    known = {f.name for f in fields(DockerSettings)}
    suite_map = getattr(suite, "environment_options", None) or {}
    if not isinstance(suite_map, Mapping):
        raise DockerSettingsError(f"suite {getattr(suite, 'name', '?')!r}: environment_options must be a mapping, "
                                  f"got {type(suite_map).__name__}")
    for key, value in suite_map.items():
        if key not in known:
            raise DockerSettingsError(f"suite {getattr(suite, 'name', '?')!r}: environment_options[{key!r}] is not "
                                      f"a setting of the docker environment (known: {', '.join(sorted(known))})")
        values[key], where[key] = value, f"suite {getattr(suite, 'name', '?')!r} environment_options[{key!r}]"
    getini = getattr(config, "getini", None)
    for key, ini in INI_NAMES.items():
        try:
            value = getini(ini) if getini is not None else None
        except ValueError:  # the key is not registered (a config without this plugin's options)
            value = None
        if value:
            values[key], where[key] = str(value), f"ini {ini}"
    option = getattr(config, "option", None)
    for key, dest in OPTION_NAMES.items():
        value = getattr(option, dest, None) if option is not None else None
        if value is not None:
            values[key], where[key] = value, f"--{dest.replace('_', '-')}"
    for key, value in overrides.items():
        if key not in known:
            raise DockerSettingsError(f"unknown docker setting {key!r}")
        values[key], where[key] = value, "argument"
    return DockerSettings(**values).validate(where)
