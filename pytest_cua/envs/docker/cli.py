"""``pytest-cua image build|list`` and ``pytest-cua docker sweep``."""

from __future__ import annotations

import argparse
import signal
import sys
import time
from typing import Any


def register(subparsers: Any) -> None:
    """Add the desktop sub-commands to the ``pytest-cua`` parser."""
    image = subparsers.add_parser("image", help="desktop images built from recipes (fixtures/images/)")
    image_sub = image.add_subparsers(dest="image_command", metavar="ACTION", required=True)
    build = image_sub.add_parser("build", help="build desktop images; skipped when the recipe hash is unchanged")
    build.add_argument("names", nargs="+", metavar="NAME", help="recipe name (fixtures/images/NAME.json) or path")
    build.add_argument("--force", action="store_true", help="rebuild even when the recipe hash is unchanged")
    build.add_argument("--vm", action="store_true",
                       help="build the recipe's guest disk for --cua-desktop vm (qcow2, kernel, initramfs) instead "
                            "of the Docker image")
    build.set_defaults(func=_image_build)
    listing = image_sub.add_parser("list", help="recipes, their hashes and whether their image is up to date")
    listing.set_defaults(func=_image_list)

    docker = subparsers.add_parser("docker", help="containers and snapshot images of pytest-cua runs")
    docker_sub = docker.add_subparsers(dest="docker_command", metavar="ACTION", required=True)
    sweep = docker_sub.add_parser("sweep", help="remove containers and snapshot images of runs that are gone")
    sweep.add_argument("--run", default=None, help="remove everything of this run id (alive or not)")
    sweep.add_argument("--all", action="store_true", dest="everything",
                       help="remove every pytest-cua container and snapshot image, even of live runs")
    sweep.add_argument("--hosts", default="local", metavar="HOSTS",
                       help="the docker daemons to sweep, comma separated, as --cua-docker-hosts takes them "
                            "(default: local, the daemon of DOCKER_HOST or the local socket)")
    sweep.add_argument("--tls-dir", default=None, metavar="DIR",
                       help="client certificates for tcp:// hosts, as --cua-docker-tls-dir (default "
                            "$DOCKER_CERT_PATH)")
    sweep.set_defaults(func=_docker_sweep)

    vm = subparsers.add_parser("vm", help="QEMU/KVM guests of pytest-cua runs (--cua-desktop vm)")
    vm_sub = vm.add_subparsers(dest="vm_command", metavar="ACTION", required=True)
    vm_sweep = vm_sub.add_parser("sweep", help="remove guests (QEMU process, overlay, sockets) of runs that are gone")
    vm_sweep.add_argument("--run", default=None, help="only this run id's guests")
    vm_sweep.add_argument("--all", action="store_true", dest="everything",
                          help="remove every pytest-cua guest, even of live runs")
    vm_sweep.set_defaults(func=_vm_sweep)


def _progress(line: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} {line}", flush=True)


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def _image_build(args: argparse.Namespace) -> int:
    from pytest_cua.envs.docker.images import build_image, docker_client

    # a terminated build must still unmount its chroot: turn SIGTERM into an exception
    signal.signal(signal.SIGTERM, _interrupt)
    if getattr(args, "vm", False):
        return _vm_disk_build(args)
    client = docker_client()
    return _build_each(args.names, lambda recipe: build_image(recipe, force=args.force, progress=_progress,
                                                              client=client), "pytest-cua image build")


def _build_each(names: list[str], build: Any, prefix: str) -> int:
    """Build each named recipe with ``build(recipe)`` (its result has ``describe()``); a recipe or build error is
    one line on stderr and exit status 1, and the other names are still built."""
    from pytest_cua.envs.docker.images import ImageBuildError
    from pytest_cua.envs.docker.recipes import RecipeError, load_recipe

    status = 0
    for name in names:
        try:
            result = build(load_recipe(name))
        except (RecipeError, ImageBuildError) as exc:
            print(f"{prefix}: {exc}", file=sys.stderr)
            status = 1
            continue
        print(result.describe())
    return status


def _image_list(args: argparse.Namespace) -> int:
    from pytest_cua.envs.docker.images import LABEL_BUILT, LABEL_HASH, docker_client, image_labels
    from pytest_cua.envs.docker.recipes import DEFAULT_RECIPE_DIR, load_recipe

    client = docker_client()
    for path in sorted(DEFAULT_RECIPE_DIR.glob("*.json")):
        recipe = load_recipe(path)
        labels = image_labels(client, recipe.image)
        digest = recipe.recipe_hash()
        if labels is None:
            state = "not built"
        elif labels.get(LABEL_HASH) == digest:
            state = f"up to date (built {labels.get(LABEL_BUILT, '?')})"
        else:
            state = f"outdated (image hash {labels.get(LABEL_HASH)})"
        print(f"{recipe.name:24} {digest}  {state}")
    return 0


def _docker_sweep(args: argparse.Namespace) -> int:
    from pytest_cua.envs.docker.hosts import DockerHostError, connect, parse_hosts
    from pytest_cua.envs.docker.leftovers import sweep

    try:
        hosts = parse_hosts(args.hosts, args.tls_dir, where="--hosts", tls_where="--tls-dir")
    except DockerHostError as exc:
        print(f"pytest-cua docker sweep: {exc}", file=sys.stderr)
        return 2
    status = 0
    for host in hosts:
        try:
            client = connect(host, timeout=60)
        except DockerHostError as exc:
            print(f"pytest-cua docker sweep: {exc}", file=sys.stderr)
            status = 1
            continue
        prefix = "" if len(hosts) == 1 else f"{host.url}: "
        try:
            report = sweep(client, run_id=args.run, everything=args.everything,
                           progress=lambda line: _progress(prefix + line))
        finally:
            client.close()
        print(prefix + report.describe())
        status = status or (1 if report.errors else 0)
    return status


def _vm_disk_build(args: argparse.Namespace) -> int:
    from pytest_cua.envs.vm.disk import build_disk

    return _build_each(args.names, lambda recipe: build_disk(recipe, force=args.force, progress=_progress)[0],
                       "pytest-cua image build --vm")


def _vm_sweep(args: argparse.Namespace) -> int:
    from pytest_cua.envs.vm.leftovers import sweep

    report = sweep(run_id=args.run, everything=args.everything, progress=_progress)
    print(report.describe())
    return 1 if report.errors else 0
