#!/usr/bin/env bash
# The endpoint benchmark beside DynamoDB Local and dynoxide's server, in one
# criterion run (server/benches/endpoint.rs). Fetches DynamoDB Local as the
# tests do (scripts/dynamodb-local.sh) and builds dynoxide's HTTP server
# once, pinned, into .cache/dynoxide (crates.io `dynoxide-rs`, a few minutes
# the first time). Extra arguments go to the benchmark (a filter, say).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
readonly DYNOXIDE_VERSION=3.2.0
readonly DYNOXIDE_ROOT=.cache/dynoxide
# Fetch (and check) DynamoDB Local; the benchmark starts its own copies.
bash scripts/dynamodb-local.sh true
if [[ ! -x $DYNOXIDE_ROOT/bin/dynoxide || $(cat "$DYNOXIDE_ROOT/.pinned" 2>/dev/null) != "$DYNOXIDE_VERSION" ]]; then
  echo "bench-endpoint: building dynoxide-rs $DYNOXIDE_VERSION (HTTP server only)" >&2
  cargo install dynoxide-rs --version "$DYNOXIDE_VERSION" --locked --force \
    --no-default-features --features native-sqlite,http-server,cli --root "$DYNOXIDE_ROOT"
  echo "$DYNOXIDE_VERSION" >"$DYNOXIDE_ROOT/.pinned"
fi
DYNAMODB_LOCAL_JAR="$PWD/.cache/dynamodb-local/DynamoDBLocal.jar" \
DYNOXIDE_BIN="$PWD/$DYNOXIDE_ROOT/bin/dynoxide" \
  exec cargo bench -p singletable-server --bench endpoint -- "$@"
