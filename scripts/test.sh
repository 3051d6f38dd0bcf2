#!/usr/bin/env bash
# The project's test command: every test of the workspace against a
# throwaway DynamoDB Local (see dynamodb-local.sh), then the runtime's unit
# tests with every optional feature (chrono, time, uuid, rust_decimal).
# Extra arguments go to the first cargo test.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck disable=SC2016 # expanded by the inner bash
exec bash scripts/dynamodb-local.sh bash -c '
  set -euo pipefail
  # Every crate of the lockfile, optional ones too: some tests read the
  # dependency graph with every feature on (`cargo tree --offline`).
  cargo fetch --quiet
  cargo test --workspace "$@"
  cargo test -p singletable-runtime --all-features --lib
' test.sh "$@"
