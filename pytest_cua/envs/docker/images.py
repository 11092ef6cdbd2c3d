"""Building desktop images without a registry: debootstrap a Debian root file system, install the recipe's
packages in a chroot, copy its files, and ``docker import`` the result with labels.

Caches (under ``/var/cache/pytest-cua`` or ``$PYTEST_CUA_CACHE``):

- ``debootstrap/<suite>-<variant>.tar``  the bare debootstrap stage, reused by every recipe without a base
- ``debs/``                             downloaded .deb files (debootstrap's ``--cache-dir`` and apt's archives)
- ``pip/``                              pip's download cache
- ``rootfs/<name>-<hash>.tar``          each built recipe's root file system, the start of recipes built on it
- ``logs/<name>.log``                   the full output of the last build of a recipe

An image is skipped when its ``pytest-cua.recipe-hash`` label equals the recipe's hash (see ``recipes.py``).
Needs root (debootstrap, chroot, mount).
"""

from __future__ import annotations

import datetime as _dt
import fcntl
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

from contextlib import contextmanager

from pytest_cua.envs.docker.recipes import Recipe

DEFAULT_MIRROR = "http://deb.debian.org/debian"
LABEL_HASH = "pytest-cua.recipe-hash"
LABEL_BUILT = "pytest-cua.built"
LABEL_RECIPE = "pytest-cua.recipe"

Progress = Callable[[str], None]


class ImageBuildError(RuntimeError):
    """A build step failed; the message names the recipe, the step and the log file."""


@dataclass
class BuildResult:
    recipe: str
    image: str
    recipe_hash: str
    skipped: bool
    seconds: float
    size_bytes: int

    def describe(self) -> str:
        what = "up to date (recipe hash unchanged)" if self.skipped else f"built in {self.seconds:.0f} s"
        return f"{self.image}: {what}; hash {self.recipe_hash}; size {self.size_bytes / 1e6:.0f} MB"


def cache_dir() -> Path:
    """The build cache folder (``$PYTEST_CUA_CACHE`` or ``/var/cache/pytest-cua``)."""
    return Path(os.environ.get("PYTEST_CUA_CACHE", "/var/cache/pytest-cua"))


def debian_mirror() -> str:
    """The Debian mirror apt already uses on this machine (``$PYTEST_CUA_DEBIAN_MIRROR`` wins)."""
    env = os.environ.get("PYTEST_CUA_DEBIAN_MIRROR")
    if env:
        return env.rstrip("/")
    sources = [Path("/etc/apt/sources.list"), *sorted(Path("/etc/apt/sources.list.d").glob("*"))]
    for path in sources:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for m in re.finditer(r"(?m)^(?:URIs:\s*|deb\s+(?:\[[^\]]*\]\s+)?)(\S+/debian)/?\s*$|"
                             r"^deb\s+(?:\[[^\]]*\]\s+)?(\S+/debian)/?\s+\S+", text):
            url = m.group(1) or m.group(2)
            if url:
                return url.rstrip("/")
    return DEFAULT_MIRROR


def docker_client() -> Any:
    """A docker SDK client with the API version negotiated against the running dockerd."""
    import docker

    return docker.from_env(version="auto", timeout=300)


def image_labels(client: Any, ref: str) -> dict[str, str] | None:
    """Labels of an image, or None when the image does not exist."""
    import docker.errors

    try:
        image = client.images.get(ref)
    except docker.errors.ImageNotFound:
        return None
    return dict(image.labels or {})


def recipe_of(image: str) -> tuple[Recipe | None, str]:
    """The recipe in fixtures/images/ of an image's name (its tag aside), or None and why there is none."""
    from pytest_cua.envs.docker.recipes import RecipeError, load_recipe

    try:
        return load_recipe(image.split(":")[0]), ""
    except RecipeError as exc:
        return None, str(exc)


def image_state(client: Any, image: str, recipe_hash: str | None) -> str:
    """``current`` (present and built from the recipe of hash ``recipe_hash``; any image of that name when it
    is None), ``outdated`` (present, from another version of the recipe) or ``missing``: the one decision
    behind building, skipping a build, sending an image to a host and the preflight."""
    labels = image_labels(client, image)
    if labels is None:
        return "missing"
    if recipe_hash is not None and labels.get(LABEL_HASH) != recipe_hash:
        return "outdated"
    return "current"


def build_image(recipe: Recipe, *, force: bool = False, progress: Progress = print,
                client: Any = None, need_rootfs: bool = False) -> BuildResult:
    """Build ``recipe`` (and its bases when needed); skip it when its image carries the same recipe hash (and,
    with ``need_rootfs``, its root file system tarball is in the cache: a recipe built on it starts there).
    Builds of one recipe are serialised across this machine's processes (xdist workers share the build folder):
    a process that waited for another's build finds the image built and skips; the chroot stages of all recipes
    are serialised too (they share apt's download cache and its lock)."""
    client = client or docker_client()
    digest = recipe.recipe_hash()
    tar_path = cache_dir() / "rootfs" / f"{recipe.name}-{digest}.tar"

    def wanted() -> bool:  # decided again under the lock: another process may have built it meanwhile
        return force or (need_rootfs and not tar_path.is_file())

    skipped = None if wanted() else _unchanged(client, recipe, digest, False, progress)
    if skipped is not None:
        return skipped
    with file_lock(f"image-build-{recipe.name}"):
        skipped = None if wanted() else _unchanged(client, recipe, digest, False, progress)
        if skipped is not None:
            return skipped
        if recipe.base is not None:
            # the base's root file system tarball is where this build starts: rebuild the base when it is gone
            # (its own "built in" line; this image's time counts its own stage only)
            build_image(recipe.base, progress=progress, client=client, need_rootfs=True)
        started = time.monotonic()
        with file_lock("image-build-chroot"):
            _RootfsBuild(recipe, digest, progress).run(tar_path)
        _import(client, recipe, digest, tar_path, progress)
        seconds = time.monotonic() - started
    size = client.images.get(recipe.image).attrs.get("Size", 0)
    progress(f"{recipe.image}: built in {seconds:.1f} s, {size / 1e6:.0f} MB")
    return BuildResult(recipe.name, recipe.image, digest, False, seconds, size)


def _unchanged(client: Any, recipe: Recipe, digest: str, force: bool, progress: Progress) -> BuildResult | None:
    """The result of a build that can be skipped: the image carries the recipe's hash (None: build it)."""
    if force or image_state(client, recipe.image, digest) != "current":
        return None
    size = client.images.get(recipe.image).attrs.get("Size", 0)
    progress(f"{recipe.image}: recipe hash {digest} unchanged, skipping")
    return BuildResult(recipe.name, recipe.image, digest, True, 0.0, size)


@contextmanager
def file_lock(name: str) -> Iterator[None]:
    """An exclusive lock shared by this machine's processes (xdist workers), under the build cache."""
    path = cache_dir() / "locks" / f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', name)}.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


class _RootfsBuild:
    """The chroot build of one recipe into a root file system tarball."""

    def __init__(self, recipe: Recipe, digest: str, progress: Progress) -> None:
        self.recipe = recipe
        self.digest = digest
        self.progress = progress
        self.cache = cache_dir()
        self.log_path = self.cache / "logs" / f"{recipe.name}.log"
        self.root = self.cache / "work" / f"{recipe.name}-{digest}"
        self.mirror = debian_mirror()
        self.step = 0
        self.steps = 6

    def say(self, text: str) -> None:
        self.step += 1
        self.progress(f"[{self.recipe.name} {self.step}/{self.steps}] {text}")

    def run(self, tar_path: Path) -> None:
        for sub in ("debootstrap", "debs", "pip", "rootfs", "logs", "work"):
            (self.cache / sub).mkdir(parents=True, exist_ok=True)
        self.log_path.write_text(f"build of {self.recipe.path} hash {self.digest}\n", encoding="utf-8")
        for stale in self.root.parent.glob(f"{self.recipe.name}-*"):  # an interrupted earlier build
            _unmount_all(stale)
            shutil.rmtree(stale)
        self.root.mkdir(parents=True)
        try:
            self._start_rootfs()
            with self._mounts():
                self._configure_apt()
                if self.recipe.packages:
                    self.say(f"apt-get install {len(self.recipe.packages)} package(s): "
                             f"{' '.join(self.recipe.packages[:8])}{' ...' if len(self.recipe.packages) > 8 else ''}")
                    self._chroot("apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "
                                 "--no-install-recommends " + " ".join(map(shlex.quote, self.recipe.packages)),
                                 step="apt-get install")
                else:
                    self.say("no Debian packages")
                if self.recipe.pip:
                    self.say(f"pip install {' '.join(self.recipe.pip)} (wheels built on the host)")
                    self._host_wheels()
                    self._chroot("python3 -m pip install --break-system-packages --no-warn-script-location "
                                 "--root-user-action=ignore --no-index --find-links /var/cache/pytest-cua-pip "
                                 + " ".join(map(shlex.quote, self.recipe.pip)), step="pip install")
                else:
                    self.say("no pip packages")
                self.say(f"copy {len(self.recipe.files)} file(s), run {len(self.recipe.run)} command(s)")
                self._copy_files()
                for command in self.recipe.run:
                    self._chroot(command, step=f"run {command!r}")
            self._clean()
            self.say(f"pack root file system into {tar_path}")
            for old in tar_path.parent.glob(f"{self.recipe.name}-*.tar"):
                old.unlink()
            tmp = tar_path.with_suffix(".tar.part")
            self._sh(["tar", "--numeric-owner", "--xattrs", "-C", str(self.root), "-cf", str(tmp), "."], "pack")
            tmp.rename(tar_path)
        finally:
            _unmount_all(self.root)
            shutil.rmtree(self.root, ignore_errors=True)

    # --- steps ---------------------------------------------------------------------------------------------

    def _start_rootfs(self) -> None:
        base = self.recipe.base
        if base is not None:
            parent = self.cache / "rootfs" / f"{base.name}-{base.recipe_hash()}.tar"
            if not parent.is_file():
                raise ImageBuildError(f"{self.recipe.path}: base {base.name!r} has no root file system tarball "
                                      f"{parent}; build it with: pytest-cua image build {base.name} --force")
            self.say(f"unpack base {base.name} ({parent.stat().st_size / 1e6:.0f} MB)")
            self._sh(["tar", "--numeric-owner", "--xattrs", "-C", str(self.root), "-xf", str(parent)], "unpack base")
            return
        stage = self.cache / "debootstrap" / f"{self.recipe.suite}-{self.recipe.variant}.tar"
        if stage.is_file():
            self.say(f"unpack cached debootstrap stage {stage.name}")
            self._sh(["tar", "--numeric-owner", "-C", str(self.root), "-xf", str(stage)], "unpack debootstrap")
            return
        self.say(f"debootstrap {self.recipe.suite} ({self.recipe.variant}) from {self.mirror}")
        self._sh(["debootstrap", f"--variant={self.recipe.variant}", f"--cache-dir={self.cache / 'debs'}",
                  self.recipe.suite, str(self.root), self.mirror], "debootstrap")
        tmp = stage.with_suffix(".tar.part")
        self._sh(["tar", "--numeric-owner", "-C", str(self.root), "-cf", str(tmp), "."], "cache debootstrap")
        tmp.rename(stage)

    def _configure_apt(self) -> None:
        suite = self.recipe.suite
        lines = [f"deb {self.mirror} {suite} main", f"deb {self.mirror} {suite}-updates main"]
        if self.mirror.endswith("/debian"):
            lines.append(f"deb {self.mirror}-security {suite}-security main")
        (self.root / "etc/apt/sources.list").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (self.root / "etc/apt/apt.conf.d/99pytest-cua").write_text(
            'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n'
            'Acquire::Retries "3";\nDpkg::Use-Pty "0";\n', encoding="utf-8")
        (self.root / "etc/dpkg/dpkg.cfg.d").mkdir(parents=True, exist_ok=True)
        (self.root / "etc/dpkg/dpkg.cfg.d/01pytest-cua-nodoc").write_text(
            "path-exclude /usr/share/doc/*\npath-include /usr/share/doc/*/copyright\n"
            "path-exclude /usr/share/man/*\npath-exclude /usr/share/info/*\n", encoding="utf-8")
        policy = self.root / "usr/sbin/policy-rc.d"
        policy.write_text("#!/bin/sh\nexit 101\n", encoding="utf-8")
        policy.chmod(0o755)
        shutil.copyfile("/etc/resolv.conf", self.root / "etc/resolv.conf")

    @contextmanager
    def _mounts(self) -> Iterator[None]:
        mounts = [
            (["-t", "proc", "proc"], "proc"),
            (["--bind", "/dev"], "dev"),
            (["-t", "devpts", "devpts"], "dev/pts"),
            (["--bind", str(self.cache / "debs")], "var/cache/apt/archives"),
            (["--bind", str(self.cache / "pip")], "var/cache/pytest-cua-pip"),
        ]
        try:
            for args, target in mounts:
                (self.root / target).mkdir(parents=True, exist_ok=True)
                self._sh(["mount", *args, str(self.root / target)], f"mount {target}")
            yield
        finally:
            _unmount_all(self.root)

    def _copy_files(self) -> None:
        for copy in self.recipe.files:
            dest = self.root / copy.dest.lstrip("/")
            dest.parent.mkdir(parents=True, exist_ok=True)
            if copy.src.is_dir():
                shutil.copytree(copy.src, dest, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            else:
                shutil.copyfile(copy.src, dest)
            if copy.mode is not None:
                dest.chmod(copy.mode)
        manifest = {"name": self.recipe.name, "hash": self.digest,
                    "built": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}
        (self.root / "etc/pytest-cua-image.json").write_text(json.dumps(manifest) + "\n", encoding="utf-8")

    def _clean(self) -> None:
        for rel in ("var/lib/apt/lists", "var/cache/apt/archives", "var/cache/pytest-cua-pip", "tmp", "root/.cache"):
            target = self.root / rel
            if target.is_dir():
                for child in target.iterdir():
                    if child.is_dir() and not child.is_symlink():
                        shutil.rmtree(child, ignore_errors=True)
                    else:
                        child.unlink(missing_ok=True)
        (self.root / "var/cache/pytest-cua-pip").rmdir() if (self.root / "var/cache/pytest-cua-pip").is_dir() else None
        (self.root / "etc/resolv.conf").write_text("", encoding="utf-8")

    def _host_wheels(self) -> None:
        """Build the pip packages' wheels with the host's pip (its index, proxy and certificates), so the
        chroot installs offline from the cache."""
        wheels = self.cache / "pip"
        env = {**os.environ, "PIP_CONSTRAINT": ""}
        self._sh([sys.executable, "-m", "pip", "wheel", "--quiet", "--wheel-dir", str(wheels), *self.recipe.pip],
                 "pip wheel (host)", env=env)

    # --- helpers -------------------------------------------------------------------------------------------

    def _chroot(self, command: str, *, step: str) -> None:
        env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root",
               "LANG": "C.UTF-8", "DEBIAN_FRONTEND": "noninteractive"}
        self._sh(["chroot", str(self.root), "/bin/sh", "-c", command], step, env=env)

    def _sh(self, argv: list[str], step: str, env: dict[str, str] | None = None) -> None:
        started = time.monotonic()
        with self.log_path.open("a", encoding="utf-8") as log:
            log.write(f"\n$ {shlex.join(argv)}\n")
            log.flush()
            try:
                proc = subprocess.run(argv, stdout=log, stderr=subprocess.STDOUT, env=env)
            except FileNotFoundError:
                raise ImageBuildError(f"{self.recipe.path}: step {step!r} needs the program {argv[0]!r}, which "
                                      f"this machine lacks: run `bash scripts/install.sh --docker` (as root) to "
                                      f"install the image builder's programs; `pytest-cua doctor` lists what is "
                                      f"missing") from None
        if proc.returncode != 0:
            tail = self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()[-25:]
            raise ImageBuildError(f"{self.recipe.path}: step {step!r} failed with exit code {proc.returncode} "
                                  f"(full log: {self.log_path}):\n  " + "\n  ".join(tail))
        elapsed = time.monotonic() - started
        if elapsed > 5:
            self.progress(f"    {step}: {elapsed:.0f} s")


def _unmount_all(root: Path) -> None:
    """Unmount everything below ``root`` (deepest first); safe when nothing is mounted."""
    try:
        mounts = Path("/proc/mounts").read_text(encoding="utf-8").splitlines()
    except OSError:
        return
    prefix = str(root.resolve()) + "/"
    targets = [line.split()[1] for line in mounts if line.split()[1].startswith(prefix)]
    for target in sorted(targets, key=len, reverse=True):
        subprocess.run(["umount", "-l", target], capture_output=True)


def _import(client: Any, recipe: Recipe, digest: str, tar_path: Path, progress: Progress) -> None:
    built = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    changes = [f"LABEL {LABEL_HASH}={digest} {LABEL_BUILT}={built} {LABEL_RECIPE}={recipe.name}"]
    for key, value in {**_inherited_labels(recipe)}.items():
        changes.append(f"LABEL {key}={json.dumps(value)}")
    for key, value in recipe.effective_env().items():
        changes.append(f"ENV {key}={json.dumps(value)}")
    changes.append(f"WORKDIR {recipe.workdir}")
    cmd = recipe.effective_cmd()
    if cmd:
        changes.append(f"CMD {json.dumps(cmd)}")
    progress(f"[{recipe.name}] docker import {tar_path.stat().st_size / 1e6:.0f} MB as {recipe.image}")
    old = image_labels(client, recipe.image)
    old_id = client.images.get(recipe.image).id if old is not None else None
    client.api.import_image_from_file(str(tar_path), repository=recipe.name, tag="latest", changes=changes)
    if old_id is not None and old_id != client.images.get(recipe.image).id:
        try:
            client.images.remove(old_id)
        except Exception:  # still used by a container or another tag: leave it
            pass


def _inherited_labels(recipe: Recipe) -> dict[str, str]:
    labels: dict[str, str] = {}
    for r in recipe.chain():
        labels.update(r.labels)
    return labels
