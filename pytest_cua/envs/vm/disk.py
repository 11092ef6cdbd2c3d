"""Guest disks built from the desktop image recipes: the recipe's root file system (the tarball the image
builder makes with debootstrap and a chroot, ``pytest_cua.envs.docker.images``), plus Debian's kernel and
initramfs installed into it in a chroot, the executor and the guest's init (``guest_init.py``), packed into an
ext4 file system (``mkfs.ext4 -d``: no loop device, no mount) and converted to qcow2.

Cache (under the image builder's cache folder, ``$PYTEST_CUA_CACHE`` or ``/var/cache/pytest-cua``)::

    vm/<name>-<hash>.qcow2     the guest disk (every guest boots an overlay backed by it)
    vm/<name>-<hash>.vmlinuz   its kernel and initramfs, booted directly (no boot loader)
    vm/<name>-<hash>.initrd
    vm/<name>-<hash>.json      what was built: recipe hash, kernel version, sizes, seconds
    logs/<name>-vm.log         the build's output

``<hash>`` (``disk_hash``) covers the recipe's hash (its files, its bases), the executor's files, the guest's
init and this format's version: a change to any of them builds the disk again; otherwise it is skipped.
Needs root (chroot, mount).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from pytest_cua.envs.docker.images import ImageBuildError, _RootfsBuild, cache_dir, file_lock
from pytest_cua.envs.docker.recipes import Recipe

Progress = Callable[[str], None]
DISK_FORMAT = "2"  # bump when the layout of the guest disk changes
KERNEL_PACKAGE = "linux-image-cloud-amd64"  # Debian's kernel for virtual machines: virtio, no hardware drivers
PORT_NAME = "org.pytest-cua.executor"  # the virtio-serial port of the executor channel
GUEST_SOCKET = "/run/cua/executor.sock"
INITRAMFS_MODULES = ("virtio_pci", "virtio_blk", "virtio_console", "ext4")
HEADROOM_BYTES = 2 << 30  # free space in the guest's file system for what tasks write


@dataclass(frozen=True)
class GuestDisk:
    """A built guest disk: its qcow2, kernel, initramfs and manifest."""

    name: str
    digest: str
    folder: Path

    @property
    def stem(self) -> Path:
        return self.folder / f"{self.name}-{self.digest}"

    @property
    def qcow2(self) -> Path:
        return self.stem.with_suffix(".qcow2")

    @property
    def kernel(self) -> Path:
        return self.stem.with_suffix(".vmlinuz")

    @property
    def initrd(self) -> Path:
        return self.stem.with_suffix(".initrd")

    @property
    def manifest(self) -> Path:
        return self.stem.with_suffix(".json")

    def exists(self) -> bool:
        return all(p.is_file() for p in (self.qcow2, self.kernel, self.initrd, self.manifest))

    def describe(self) -> str:
        if not self.exists():
            return f"{self.qcow2}: not built"
        info = json.loads(self.manifest.read_text(encoding="utf-8"))
        return (f"{self.qcow2}: kernel {info.get('kernel')}, {self.qcow2.stat().st_size / 1e6:.0f} MB qcow2, "
                f"built {info.get('built')} in {info.get('seconds', 0):.0f} s")


def guest_files() -> list[Path]:
    """What the disk carries from this checkout: the executor and its op modules, the guest's init."""
    docker_dir = Path(__file__).resolve().parents[1] / "docker"
    return sorted(docker_dir.glob("executor*.py")) + [Path(__file__).resolve().parent / "guest_init.py"]


def disk_hash(recipe: Recipe) -> str:
    h = hashlib.sha256(f"{DISK_FORMAT}\n{KERNEL_PACKAGE}\n{recipe.recipe_hash()}\n".encode())
    for path in guest_files():
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def guest_disk(recipe: Recipe) -> GuestDisk:
    """Where ``recipe``'s guest disk is (built or not)."""
    return GuestDisk(recipe.name, disk_hash(recipe), cache_dir() / "vm")


def disk_state(recipe: Recipe) -> str:
    """``current`` (built from this recipe and executor), ``outdated`` (an older build) or ``missing``."""
    disk = guest_disk(recipe)
    if disk.exists():
        return "current"
    return "outdated" if any(disk.folder.glob(f"{recipe.name}-*.qcow2")) else "missing"


def ensure_rootfs(recipe: Recipe, progress: Progress) -> Path:
    """The root file system tarball of ``recipe`` (and its bases, root first), built when missing: the image
    builder's chroot build, without the Docker import (a guest disk needs no Docker engine)."""
    tar = cache_dir() / "rootfs" / f"{recipe.name}-{recipe.recipe_hash()}.tar"
    for node in recipe.chain():
        digest = node.recipe_hash()
        path = cache_dir() / "rootfs" / f"{node.name}-{digest}.tar"
        if path.is_file():
            continue
        with file_lock(f"image-build-{node.name}"):  # the image builder's lock: one build of a recipe at a time
            if not path.is_file():
                progress(f"[{node.name}] root file system {path.name} not in the cache: building it")
                _RootfsBuild(node, digest, progress).run(path)
    return tar


def build_disk(recipe: Recipe, *, force: bool = False, progress: Progress = print) -> tuple[GuestDisk, bool]:
    """Build ``recipe``'s guest disk unless it is current; returns the disk and whether it was built."""
    disk = guest_disk(recipe)
    if disk.exists() and not force:
        progress(f"{disk.qcow2.name}: disk hash {disk.digest} unchanged, skipping")
        return disk, False
    with file_lock(f"vm-disk-{recipe.name}"):
        if disk.exists() and not force:
            return disk, False
        started = time.monotonic()
        tar = ensure_rootfs(recipe, progress)
        _DiskBuild(recipe, disk, progress).run(tar, started)
    return disk, True


class _DiskBuild:
    """One guest disk build: unpack, kernel in a chroot, guest files, ext4, qcow2."""

    def __init__(self, recipe: Recipe, disk: GuestDisk, progress: Progress) -> None:
        self.recipe = recipe
        self.disk = disk
        self.progress = progress
        # the image builder's chroot helpers (mounts, apt cache, log), on this build's own folder and log
        self.chroot = _RootfsBuild(recipe, disk.digest, progress)
        self.chroot.root = cache_dir() / "work" / f"vm-{recipe.name}-{disk.digest}"
        self.chroot.log_path = cache_dir() / "logs" / f"{recipe.name}-vm.log"
        self.chroot.steps = 5
        self.root = self.chroot.root

    def run(self, tar: Path, started: float) -> None:
        for sub in ("vm", "logs", "work", "debs", "pip"):
            (cache_dir() / sub).mkdir(parents=True, exist_ok=True)
        self.chroot.log_path.write_text(f"guest disk of {self.recipe.path} hash {self.disk.digest}\n", encoding="utf-8")
        for stale in self.root.parent.glob(f"vm-{self.recipe.name}-*"):
            _unmount_below(stale)
            shutil.rmtree(stale)
        self.root.mkdir(parents=True)
        raw = self.disk.stem.with_suffix(".raw")
        try:
            self.chroot.say(f"unpack {tar.name} ({tar.stat().st_size / 1e6:.0f} MB)")
            self.chroot._sh(["tar", "--numeric-owner", "--xattrs", "-C", str(self.root), "-xf", str(tar)], "unpack")
            self._kernel()
            self.chroot.say("executor, guest init and boot file")
            self._guest_files()
            kernel_version = self._take_kernel()
            self.chroot.say("ext4 file system (mkfs.ext4 -d) and qcow2 (qemu-img convert)")
            size = _tree_bytes(self.root) * 5 // 4 + HEADROOM_BYTES
            self.chroot._sh(["mkfs.ext4", "-q", "-F", "-L", "cua-root", "-d", str(self.root), str(raw),
                             f"{size // (1 << 20)}M"], "mkfs.ext4")
            for old in self.disk.folder.glob(f"{self.recipe.name}-*.*"):
                if old.stem != self.disk.stem.name and old.suffix in (".qcow2", ".json", ".vmlinuz", ".initrd"):
                    old.unlink()  # an older build of this recipe
            part = self.disk.qcow2.with_suffix(".qcow2.part")
            self.chroot._sh(["qemu-img", "convert", "-f", "raw", "-O", "qcow2", str(raw), str(part)], "qemu-img")
            part.rename(self.disk.qcow2)
            seconds = time.monotonic() - started
            manifest = {"recipe": self.recipe.name, "recipe_hash": self.recipe.recipe_hash(),
                        "disk_hash": self.disk.digest, "kernel": kernel_version, "kernel_package": KERNEL_PACKAGE,
                        "seconds": round(seconds, 1), "raw_bytes": size,
                        "built": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}
            self.disk.manifest.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
            self.progress(f"{self.disk.qcow2.name}: built in {seconds:.0f} s, "
                          f"{self.disk.qcow2.stat().st_size / 1e6:.0f} MB")
        finally:
            _unmount_below(self.root)
            shutil.rmtree(self.root, ignore_errors=True)
            raw.unlink(missing_ok=True)

    def _kernel(self) -> None:
        conf = self.root / "etc/initramfs-tools"
        conf.mkdir(parents=True, exist_ok=True)
        (conf / "modules").write_text("\n".join(INITRAMFS_MODULES) + "\n", encoding="utf-8")
        self.chroot.say(f"apt-get install {KERNEL_PACKAGE} (Debian's kernel and initramfs)")
        with self.chroot._mounts():
            self.chroot._configure_apt()
            self.chroot._chroot("apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "
                                f"--no-install-recommends {KERNEL_PACKAGE} initramfs-tools",
                                step=f"apt-get install {KERNEL_PACKAGE}")
        self.chroot._clean()

    def _guest_files(self) -> None:
        opt = self.root / "opt/cua"
        opt.mkdir(parents=True, exist_ok=True)
        for path in guest_files():
            target = opt / ("vm-init" if path.name == "guest_init.py" else path.name)
            shutil.copyfile(path, target)
            target.chmod(0o755)
        cmd = self.recipe.effective_cmd()
        if not cmd:
            raise ImageBuildError(f"{self.recipe.path}: field 'cmd' is empty: a guest needs the executor's command")
        boot = {"env": self.recipe.effective_env(), "workdir": self.recipe.workdir, "cmd": cmd,
                "port": PORT_NAME, "socket": GUEST_SOCKET, "folders": ["/run/cua", "/run/cua/xdg"]}
        (opt / "vm-boot.json").write_text(json.dumps(boot, indent=2) + "\n", encoding="utf-8")
        (self.root / "etc/hostname").write_text("cua-vm\n", encoding="utf-8")
        (self.root / "etc/fstab").write_text("# the guest's init mounts what it needs (/opt/cua/vm-init)\n",
                                             encoding="utf-8")

    def _take_kernel(self) -> str:
        kernels = sorted((self.root / "boot").glob("vmlinuz-*"))
        if not kernels:
            raise ImageBuildError(f"{self.recipe.path}: no /boot/vmlinuz-* after installing {KERNEL_PACKAGE} "
                                  f"(log: {self.chroot.log_path})")
        version = kernels[-1].name.removeprefix("vmlinuz-")
        initrd = self.root / "boot" / f"initrd.img-{version}"
        if not initrd.is_file():
            raise ImageBuildError(f"{self.recipe.path}: no {initrd.name} (initramfs-tools did not run; log: "
                                  f"{self.chroot.log_path})")
        shutil.copyfile(kernels[-1], self.disk.kernel)
        shutil.copyfile(initrd, self.disk.initrd)
        return version


def _tree_bytes(root: Path) -> int:
    """The blocks the files below ``root`` take, in bytes (what ``du`` says)."""
    total = 0
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_blocks * 512
            except OSError:
                pass
    return total


def _unmount_below(root: Path) -> None:
    try:
        mounts = Path("/proc/mounts").read_text(encoding="utf-8").splitlines()
    except OSError:
        return
    prefix = str(root.resolve()) + "/"
    for target in sorted((line.split()[1] for line in mounts if line.split()[1].startswith(prefix)),
                         key=len, reverse=True):
        subprocess.run(["umount", "-l", target], capture_output=True)
