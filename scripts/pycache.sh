# Sourced by scripts/test.sh and scripts/scuba.sh. A run starts many Python processes (xdist workers, the
# tests' inner pytest runs, org servers); each compiles what it imports, and pytest rewrites every test module
# and the plugin's own, unless compiled bytecode is kept. Where the environment says PYTHONDONTWRITEBYTECODE,
# that costs 2-3 s per process. Bytecode is kept in a cache outside the checkout instead (nothing is written
# beside the sources): $PYTHONPYCACHEPREFIX when set, else ~/.cache/pytest-cua/pycache.
unset PYTHONDONTWRITEBYTECODE
export PYTHONPYCACHEPREFIX="${PYTHONPYCACHEPREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/pytest-cua/pycache}"
