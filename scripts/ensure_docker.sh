#!/bin/sh
# Make sure a Docker daemon answers: install docker.io when missing, start dockerd when not running.
# Idempotent: does nothing when `docker info` already answers. Needs root for the install and the start.
#
#   scripts/ensure_docker.sh            wait up to 60 s for dockerd (PYTEST_CUA_DOCKERD_WAIT to change)
#   scripts/ensure_docker.sh --list     print "PROGRAM MANAGER PACKAGE" for what it installs; do nothing
#   scripts/ensure_docker.sh --install-only   install docker.io when dockerd or docker is missing; start nothing
#                                       (scripts/remote_dockerd.sh needs the dockerd program even where another
#                                       daemon already answers)
#
# dockerd's log goes to /tmp/dockerd.log. pytest-cua's containers use network_mode=none, so the daemon's
# own bridge is not needed: when the plain start fails (no iptables in a sandbox), it retries with
# --iptables=false --bridge=none. PYTEST_CUA_APT_UPDATED=1 (set by scripts/install.sh) skips `apt-get update`.
set -eu

if [ "${1:-}" = "--list" ]; then
    echo "dockerd apt docker.io"
    echo "docker apt docker.io"
    exit 0
fi

WAIT="${PYTEST_CUA_DOCKERD_WAIT:-60}"
LOG=/tmp/dockerd.log
PIDFILE=/var/run/docker.pid

say() { echo "ensure_docker: $*" >&2; }

answers() { docker info >/dev/null 2>&1; }

# a dockerd of ours runs: its pid file names a live process
running() { [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; }

wait_for_daemon() {
    pid="$1"
    i=0
    while [ "$i" -lt "$WAIT" ]; do
        if answers; then return 0; fi
        if ! kill -0 "$pid" 2>/dev/null; then return 1; fi
        sleep 1
        i=$((i + 1))
    done
    return 1
}

missing() { ! command -v dockerd >/dev/null 2>&1 || ! command -v docker >/dev/null 2>&1; }

install() {
    say "installing docker.io with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    if [ "${PYTEST_CUA_APT_UPDATED:-}" != 1 ]; then
        apt-get update -q >/dev/null
    fi
    apt-get install -y -q --no-install-recommends docker.io >/dev/null
}

if [ "${1:-}" = "--install-only" ]; then
    if missing; then install; fi
    exit 0
fi

if answers; then
    say "dockerd already answers"
    exit 0
fi

if missing; then
    install
    if answers; then  # a daemon was there all along (only the client was missing): use it, start none
        say "dockerd answers"
        exit 0
    fi
fi

if running; then
    say "dockerd is running but does not answer yet; waiting"
    i=0
    while [ "$i" -lt "$WAIT" ]; do
        if answers; then say "dockerd answers"; exit 0; fi
        sleep 1
        i=$((i + 1))
    done
    say "dockerd runs but did not answer within ${WAIT}s (log: $LOG)"
    exit 1
fi

# a daemon that died uncleanly leaves its pid file behind and refuses to start
rm -f "$PIDFILE"

say "starting dockerd (log: $LOG)"
nohup dockerd >>"$LOG" 2>&1 &
if wait_for_daemon "$!"; then
    say "dockerd answers"
    exit 0
fi

say "plain dockerd did not come up; retrying with --iptables=false --bridge=none"
kill "$!" 2>/dev/null || true
sleep 1
rm -f "$PIDFILE"
nohup dockerd --iptables=false --bridge=none >>"$LOG" 2>&1 &
if wait_for_daemon "$!"; then
    say "dockerd answers (without iptables and bridge)"
    exit 0
fi

say "dockerd did not answer within ${WAIT}s; last lines of $LOG:"
tail -n 20 "$LOG" >&2
exit 1
