#!/bin/sh
# A second Docker daemon on this machine that stands in for a remote one: its own --data-root, --exec-root,
# --pidfile and managed containerd, no bridge and no iptables rules, listening only on
# tcp://127.0.0.1:PORT with --tlsverify (a private CA, a server and a client certificate made by
# `python3 -m pytest_cua.envs.docker.certs`). Needs root; installs docker.io (dockerd) when missing.
#
#   scripts/remote_dockerd.sh start    start it unless it answers already (idempotent); waits until it answers
#   scripts/remote_dockerd.sh stop     stop it (SIGTERM, SIGKILL after 30 s); its data root stays
#   scripts/remote_dockerd.sh kill     SIGKILL it (a crash: what a daemon restarted mid-run looks like)
#   scripts/remote_dockerd.sh purge    stop it and remove its folder (images, containers, certificates)
#   scripts/remote_dockerd.sh env      print DOCKER_HOST, DOCKER_TLS_VERIFY, DOCKER_CERT_PATH for it
#   scripts/remote_dockerd.sh status   exit 0 when it answers
#
# PYTEST_CUA_REMOTE_DOCKERD_DIR (default /tmp/pytest-cua-remote-dockerd) holds data/, exec/, tls/,
# dockerd.pid and dockerd.log; PYTEST_CUA_REMOTE_DOCKERD_PORT (default 23761) is the TCP port.
# pytest-cua reaches it with: --cua-docker-hosts tcp://127.0.0.1:PORT --cua-docker-tls-dir DIR/tls/client
set -eu
cd "$(dirname "$0")/.."

DIR="${PYTEST_CUA_REMOTE_DOCKERD_DIR:-/tmp/pytest-cua-remote-dockerd}"
PORT="${PYTEST_CUA_REMOTE_DOCKERD_PORT:-23761}"
WAIT="${PYTEST_CUA_DOCKERD_WAIT:-60}"
PYTHON="${PYTHON:-python3}"
PIDFILE="$DIR/dockerd.pid"
LOG="$DIR/dockerd.log"
TLS="$DIR/tls"
HOST="tcp://127.0.0.1:$PORT"

say() { echo "remote_dockerd: $*" >&2; }

answers() {
    [ -f "$TLS/client/cert.pem" ] || return 1
    DOCKER_HOST="$HOST" DOCKER_TLS_VERIFY=1 DOCKER_CERT_PATH="$TLS/client" docker info >/dev/null 2>&1
}

pid() { [ -f "$PIDFILE" ] && cat "$PIDFILE"; }

running() { p="$(pid)" && [ -n "$p" ] && kill -0 "$p" 2>/dev/null; }

wait_gone() {  # $1: pid, $2: seconds
    i=0
    while kill -0 "$1" 2>/dev/null && [ "$i" -lt "$2" ]; do sleep 1; i=$((i + 1)); done
    ! kill -0 "$1" 2>/dev/null
}

start() {
    if answers; then say "dockerd on $HOST already answers"; return 0; fi
    command -v dockerd >/dev/null 2>&1 || sh "$(dirname "$0")/ensure_docker.sh" --install-only
    command -v dockerd >/dev/null 2>&1 || { say "dockerd is missing and could not be installed"; exit 1; }
    if running; then
        say "dockerd $(pid) runs but does not answer yet; waiting"
    else
        mkdir -p "$DIR/data" "$DIR/exec"
        "$PYTHON" -m pytest_cua.envs.docker.certs "$TLS" >/dev/null
        echo '{}' > "$DIR/daemon.json"  # not /etc/docker/daemon.json: nothing of the main daemon's settings
        rm -f "$PIDFILE"
        say "starting dockerd on $HOST (data root $DIR/data, log $LOG)"
        nohup dockerd --config-file "$DIR/daemon.json" --data-root "$DIR/data" --exec-root "$DIR/exec" \
            --pidfile "$PIDFILE" --bridge=none --iptables=false --ip6tables=false \
            --host "$HOST" --tlsverify --tlscacert "$TLS/ca.pem" --tlscert "$TLS/server.pem" \
            --tlskey "$TLS/server-key.pem" >>"$LOG" 2>&1 &
    fi
    i=0
    while [ "$i" -lt "$((WAIT * 4))" ]; do
        if answers; then say "dockerd on $HOST answers"; return 0; fi
        sleep 0.25
        i=$((i + 1))
    done
    say "dockerd on $HOST did not answer within ${WAIT}s; last lines of $LOG:"
    tail -n 20 "$LOG" >&2 || true
    exit 1
}

stop() {
    if ! running; then say "not running"; return 0; fi
    p="$(pid)"
    kill "$p"
    if ! wait_gone "$p" 30; then kill -9 "$p" 2>/dev/null || true; wait_gone "$p" 10 || true; fi
    say "stopped dockerd $p"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    kill)
        if running; then p="$(pid)"; kill -9 "$p"; wait_gone "$p" 10 || true; say "killed dockerd $p"
        else say "not running"; fi ;;
    purge)
        stop
        # the containerd it managed exits with it; what it mounted under the data root goes first
        if [ -d "$DIR" ]; then
            grep " $DIR/" /proc/mounts | cut -d' ' -f2 | sort -r | while read -r m; do umount -l "$m" || true; done
            rm -rf "$DIR"
        fi
        say "removed $DIR" ;;
    env)
        echo "DOCKER_HOST=$HOST"
        echo "DOCKER_TLS_VERIFY=1"
        echo "DOCKER_CERT_PATH=$TLS/client" ;;
    status) answers ;;
    *) echo "usage: scripts/remote_dockerd.sh start|stop|kill|purge|env|status" >&2; exit 2 ;;
esac
