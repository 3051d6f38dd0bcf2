#!/usr/bin/env bash
# The project's test command: the workspace's tests against a throwaway
# DynamoDB Local (see dynamodb-local.sh). Extra arguments go to cargo test.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
TEST_ARGS=(--workspace)
exec bash scripts/dynamodb-local.sh cargo test "${TEST_ARGS[@]}" "$@"
