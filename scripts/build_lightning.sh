#!/usr/bin/env bash
# Builds the embedded org's Lightning UI, idempotently: Salesforce's LWC engine (with synthetic shadow), its
# base components and the Lightning Design System, all from npm at the versions pinned in
# pytest_cua/orgs/localorg/lightning/package-lock.json, compiled with @lwc/rollup-plugin into
#
#   pytest_cua/orgs/localorg/lightning/dist/
#     assets/one/<entry>-<hash>.js, <chunk>-<hash>.js        our components and the base components (ES modules)
#     ENTRIES                                                the entry scripts by name (JSON): `one`, the shell on
#                                                            every page; `one-list-view`, ... for the pages with one
#     assets/styles/salesforce-lightning-design-system.min.css   SLDS, unmodified
#     assets/icons/{utility,standard,action,custom,doctype}-sprite/svg/symbols.svg, assets/images/   SLDS, unmodified
#     assets/icons/License-for-icons.txt, assets/images/License-for-images.txt   (CC BY-ND 4.0; see NOTICE)
#     NOTICE                                                 the repository's NOTICE (licences, attribution)
#     BUILD-STAMP                                            the hash of every input; equal stamp = nothing to do
#
# The org serves dist/assets/ at /assets/ (the base components load icons from /assets/icons/...); a wheel
# carries dist/, so `pip install pytest-cua` needs no Node. Nothing runs when BUILD-STAMP matches the sources.
# npm's packages live in a cache shared by every checkout on the machine, one folder per lock file
# (PYTEST_CUA_LIGHTNING_CACHE, default /opt/pytest-cua/lightning), and so does each finished build.
#
# Usage: scripts/build_lightning.sh [--force] [--list]
#   --force   build even when the stamp matches
#   --list    print "PROGRAM MANAGER PACKAGE" for the programs this script needs; build nothing
set -euo pipefail
cd "$(dirname "$0")/.."

force=0
for arg in "$@"; do
  case "$arg" in
    --force) force=1 ;;
    --list) echo "node apt nodejs"; echo "npm apt npm"; exit 0 ;;
    *) echo "build_lightning.sh: unknown argument '$arg' (usage: scripts/build_lightning.sh [--force] [--list])" >&2
       exit 2 ;;
  esac
done

SRC=pytest_cua/orgs/localorg/lightning
OUT="$SRC/dist"
CACHE="${PYTEST_CUA_LIGHTNING_CACHE:-/opt/pytest-cua/lightning}"
for program in node npm; do
  if ! command -v "$program" >/dev/null 2>&1; then
    echo "build_lightning.sh: '$program' is missing; scripts/install.sh installs it (apt-get install nodejs npm)" >&2
    exit 1
  fi
done

# the stamp: every input's name and content, and the Node major version that compiles them
stamp=$( (cd "$SRC" && { printf 'node %s\n' "$(node -p 'process.versions.node.split(".")[0]')";
          find package.json package-lock.json rollup.config.mjs src -type f -print0 | LC_ALL=C sort -z |
          xargs -0 sha256sum; }) | sha256sum | cut -c1-16)
if [ "$force" = 0 ] && [ -f "$OUT/BUILD-STAMP" ] && [ "$(cat "$OUT/BUILD-STAMP")" = "$stamp" ] \
   && cmp -s NOTICE "$OUT/NOTICE"; then
  echo "build_lightning.sh: up to date ($OUT, stamp $stamp)"
  exit 0
fi

mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9  # one build at a time on this machine (checkouts share the cache)

built="$CACHE/dist-$stamp"
if [ "$force" = 1 ] || [ ! -f "$built/BUILD-STAMP" ]; then
  lock_hash=$(sha256sum "$SRC/package-lock.json" | cut -c1-16)
  modules="$CACHE/modules-$lock_hash"
  if [ ! -f "$modules/.complete" ]; then
    echo "build_lightning.sh: npm ci (the pinned packages of $SRC/package-lock.json) into $modules"
    rm -rf "$modules.tmp"
    mkdir -p "$modules.tmp"
    cp "$SRC/package.json" "$SRC/package-lock.json" "$modules.tmp/"
    (cd "$modules.tmp" && npm ci --no-fund --no-audit --loglevel=error >/dev/null)
    touch "$modules.tmp/.complete"
    rm -rf "$modules"
    mv "$modules.tmp" "$modules"
  fi

  work="$CACHE/work-$stamp"
  rm -rf "$work"
  mkdir -p "$work"
  cp -r "$SRC/src" "$SRC/package.json" "$SRC/rollup.config.mjs" "$work/"
  ln -s "$modules/node_modules" "$work/node_modules"
  slds="$modules/node_modules/@salesforce-ux/design-system/assets"
  stage="$work/dist"
  echo "build_lightning.sh: compiling $SRC/src with rollup (@lwc/rollup-plugin)"
  (cd "$work" && ONE_OUT="$stage/assets/one" node node_modules/rollup/dist/bin/rollup -c rollup.config.mjs \
     --silent)
  mv "$stage/assets/one/ENTRIES" "$stage/ENTRIES"
  mkdir -p "$stage/assets/styles" "$stage/assets/icons"
  cp "$slds/styles/salesforce-lightning-design-system.min.css" "$stage/assets/styles/"
  for category in utility standard action custom doctype; do
    mkdir -p "$stage/assets/icons/$category-sprite/svg"
    cp "$slds/icons/$category-sprite/svg/symbols.svg" "$stage/assets/icons/$category-sprite/svg/"
  done
  cp "$slds/icons/License-for-icons.txt" "$stage/assets/icons/"
  cp -r "$slds/images" "$stage/assets/images"
  node -e '
    const lock = require(process.argv[1]);
    const names = Object.keys(lock.packages[""].dependencies);
    for (const n of names) console.log(n + " " + lock.packages["node_modules/" + n].version);
  ' "$(realpath "$SRC/package-lock.json")" > "$stage/VERSIONS"
  echo "$stamp" > "$stage/BUILD-STAMP"
  rm -rf "$built"
  mv "$stage" "$built"
  rm -rf "$work"
fi

rm -rf "$OUT.tmp"
cp -r "$built" "$OUT.tmp"
cp NOTICE "$OUT.tmp/NOTICE"  # the attribution the bundled packages ask for travels with them (and in a wheel)
rm -rf "$OUT"
mv "$OUT.tmp" "$OUT"
echo "build_lightning.sh: built $OUT (stamp $stamp; $(du -sh "$OUT" | cut -f1))"
