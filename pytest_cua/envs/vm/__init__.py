"""Desktops as virtual machines (QEMU/KVM) with snapshot rollback: the ``vm`` provider.

- ``disk``: guest disks built from the desktop image recipes (root file system, Debian's kernel and
  initramfs, the executor), cached by hash
- ``guest_init``: PID 1 of the Linux guest (mounts, the executor, the virtio-serial relay)
- ``qmp``: the QEMU Machine Protocol client (savevm, loadvm, quit)
- ``machine``: one QEMU process, its overlay, sockets and owner record; the executor channel
- ``leftovers``: the sweep of what a dead worker left (QEMU processes, overlays, sockets)
- ``options``: ``--cua-desktop`` and the ``--cua-vm-*`` options
- ``environment``: ``VmEnvironment`` (the same executor, observations and actions as the containers)
- ``provider``: ``VmProvider`` (``pytest_cua.envs.vm:PROVIDER``), the desktop choice, the memory cap

May import: the core, the environment contract (``pytest_cua.envs.base``), the provider registry and the
Docker package (its executor client, observation, start-up and image builder: the guests run the same
executor as the containers). ``guest_init`` imports nothing of pytest_cua (it runs in the guest).
"""

from __future__ import annotations

from pytest_cua.envs.vm.provider import PROVIDER, VmProvider

__all__ = ["PROVIDER", "VmProvider"]
