#!/usr/bin/env bash
# Install the official JavaScript client for the interop suite: tests/interop/js/node_modules,
# exactly as tests/interop/js/package-lock.json pins it (@a2a-js/sdk; `npm ci`). Needs Node >= 20.
# tests/interop/test_js_sdk.py runs tests/interop/js/client.mjs with it against our dev server.
# Idempotent: does nothing when node_modules matches the lock file.
set -euo pipefail
cd "$(dirname "$0")/../tests/interop/js"

stamp="node_modules/.a2a-serverless-lock"
wanted="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ] && [ -d node_modules/@a2a-js/sdk ]; then
    echo "interop-js: @a2a-js/sdk already installed as pinned; nothing to do"
    exit 0
fi
command -v npm >/dev/null || {
    echo "interop-js: npm (Node >= 20) is needed to install @a2a-js/sdk" >&2
    exit 1
}
echo "interop-js: installing @a2a-js/sdk into tests/interop/js (npm ci)"
npm ci --no-audit --no-fund --loglevel=error
echo "$wanted" > "$stamp"
