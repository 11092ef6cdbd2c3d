#!/usr/bin/env bash
# Installs what pytest-cua needs on a fresh Debian machine, idempotently: every host program the project runs
# (PROGRAMS in pytest_cua/cli/doctor.py is the list; tests/test_programs.py checks this script against it) and the
# package with its extras. apt-get runs only for programs that are missing, after one `apt-get update`.
# The Salesforce CLI (`sf`, with the Node.js it needs) comes from scripts/ensure_sf.sh (also SCUBA's evaluation
# packages, for the parity harness): the tests run it against the embedded org.
#
# Usage: scripts/install.sh [--docker] [--list]
#   --docker  also the desktop image builder's programs (debootstrap, chroot, tar, mount) and the Docker
#             engine (scripts/ensure_docker.sh installs and starts dockerd)
#   --list    print "PROGRAM MANAGER PACKAGE" for every program this script installs; install nothing
set -euo pipefail
cd "$(dirname "$0")/.."

docker=0
list=0
for arg in "$@"; do
  case "$arg" in
    --docker) docker=1 ;;
    --list) list=1 ;;
    *) echo "install.sh: unknown argument '$arg' (usage: scripts/install.sh [--docker] [--list])" >&2; exit 2 ;;
  esac
done

need_apt=()
need_npm=()
# program MANAGER NAME PACKAGE: PACKAGE (from apt, npm or pip) provides the program NAME; a missing apt or npm
# program's package is queued for installation (pip packages come with the package's extras below)
program() {
  if [ "$list" = 1 ]; then echo "$2 $1 $3"; return 0; fi
  if [ "$1" = pip ] || command -v "$2" >/dev/null 2>&1; then return 0; fi
  case "$1" in
    apt) [[ " ${need_apt[*]-} " == *" $3 "* ]] || need_apt+=("$3") ;;
    npm) need_npm+=("$3") ;;
  esac
}

program apt chromium chromium
program apt Xvfb xvfb
program apt xvfb-run xvfb
program apt xauth xauth
program pip ffmpeg imageio-ffmpeg
program apt node nodejs
program apt npx npm
program apt npm npm
program npm allure allure@3
if [ "$docker" = 1 ]; then
  # the desktop image builder: debootstrap a root file system, chroot into it, mount /proc and /dev, tar it
  program apt debootstrap debootstrap
  program apt chroot coreutils
  program apt tar tar
  program apt mount mount
  program apt umount mount
  # the tests' second Docker daemon (scripts/remote_dockerd.sh) and ssh:// docker hosts (--cua-docker-hosts)
  program apt sh dash
  program apt ssh openssh-client
  # the vm desktops (--cua-desktop vm, pytest_cua/envs/vm): QEMU with KVM, qcow2 overlays, the guest disk's ext4
  program apt qemu-system-x86_64 qemu-system-x86
  program apt qemu-img qemu-utils
  program apt mkfs.ext4 e2fsprogs
fi

# `python3 -m venv` (the packaging tests build and install the wheel in fresh virtual environments) needs
# ensurepip, which Debian's python3 leaves to the python3-venv package
if [ "$list" != 1 ] && ! python3 -c 'import ensurepip' >/dev/null 2>&1; then
  need_apt+=("python3-venv")
fi

if [ "$list" = 1 ]; then
  bash scripts/ensure_sf.sh --list
  if [ "$docker" = 1 ]; then bash scripts/ensure_docker.sh --list; fi
  exit 0
fi

if [ ${#need_apt[@]} -gt 0 ]; then
  echo "install.sh: apt-get install ${need_apt[*]}"
  apt-get update -qq
  export PYTEST_CUA_APT_UPDATED=1  # scripts/ensure_docker.sh need not update again
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if [ ${#need_npm[@]} -gt 0 ]; then
  # only `pytest-cua report` needs these: a failure is reported, it does not stop the tests
  echo "install.sh: npm install -g ${need_npm[*]}"
  if ! npm install -g --no-fund --no-audit --loglevel=error "${need_npm[@]}" >/dev/null; then
    echo "install.sh: WARNING: npm install -g ${need_npm[*]} failed; pytest-cua report needs it" >&2
  fi
fi

# a Python that Debian manages (PEP 668: an EXTERNALLY-MANAGED file beside its standard library) refuses pip
# installs outside a virtual environment; this machine's Python is the project's, so pip may install into it
if python3 -c 'import sys, sysconfig, pathlib; sys.exit(0 if (pathlib.Path(sysconfig.get_path("stdlib")) / "EXTERNALLY-MANAGED").exists() else 1)' 2>/dev/null; then
  echo "install.sh: python3 is managed by the system (PEP 668): pip installs with PIP_BREAK_SYSTEM_PACKAGES=1"
  export PIP_BREAK_SYSTEM_PACKAGES=1
fi

stamp=".install-stamp"
digest=$(sha256sum pyproject.toml | cut -c1-16)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$digest" ] || ! python3 -c "import pytest_cua, playwright, xdist, gui_agents, loguru" 2>/dev/null; then
  echo "install.sh: pip install -e .[test]"
  python3 -m pip install -q --disable-pip-version-check -e ".[test]"
  # Agent-S (--agent agent-s) for its tests: gui-agents declares paddlepaddle, paddleocr, selenium and more (GBs)
  # that the bridged planner and grounding never import; the full set is the scuba-agents extra
  python3 -m pip install -q --disable-pip-version-check --no-deps "gui-agents==0.2.5.post3"
  echo "$digest" > "$stamp"
fi

bash scripts/ensure_sf.sh --scuba-eval
# the embedded org's Lightning UI (Salesforce's LWC engine, base components and SLDS from npm): nothing runs
# when it is built from the current sources
bash scripts/build_lightning.sh

if [ "$docker" = 1 ]; then
  bash scripts/ensure_docker.sh
fi
