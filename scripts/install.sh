#!/usr/bin/env bash
# Installs what pytest-cua needs on a fresh Debian machine, idempotently: the package with its extras,
# Debian's Chromium (Playwright's own browser download is not used), Xvfb for --headed runs.
# Usage: scripts/install.sh [--docker]   (--docker also installs debootstrap for the image builder and
# installs and starts dockerd)
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v Xvfb >/dev/null 2>&1 || need_apt+=(xvfb)
if [ "${1:-}" = "--docker" ]; then
  # the desktop image builder: debootstrap a root file system, then chroot into it
  command -v debootstrap >/dev/null 2>&1 || need_apt+=(debootstrap)
  command -v chroot >/dev/null 2>&1 || need_apt+=(coreutils)
fi
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "install.sh: apt-get install ${need_apt[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

stamp=".install-stamp"
digest=$(sha256sum pyproject.toml | cut -c1-16)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$digest" ] || ! python3 -c "import pytest_cua, playwright, xdist" 2>/dev/null; then
  echo "install.sh: pip install -e .[test]"
  python3 -m pip install -q --disable-pip-version-check -e ".[test]"
  echo "$digest" > "$stamp"
fi

if [ "${1:-}" = "--docker" ]; then
  bash scripts/ensure_docker.sh
fi
