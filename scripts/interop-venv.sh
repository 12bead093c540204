#!/usr/bin/env bash
# Create or refresh .venv-a2a-sdk1: a separate virtualenv holding the official a2a-sdk 1.x.
#
# a2a-sdk 1.x cannot be installed next to the 0.3.26 in .venv, yet the interop suite checks that
# a 1.x client (in its protocol-0.3 compatibility mode) talks to our server too:
# tests/interop/test_sdk1.py runs tests/interop/sdk1_client.py with this venv's python.
# Idempotent: does nothing when a 1.x a2a-sdk and httpx are already installed there.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=.venv-a2a-sdk1
PYTHON="${PYTHON:-python3}"

if [ ! -x "$VENV/bin/python" ]; then
    echo "interop-venv: creating $VENV with $($PYTHON --version 2>&1)"
    "$PYTHON" -m venv "$VENV"
fi
# Keep the venv out of git (and so out of ruff, which respects .gitignore).
[ -f "$VENV/.gitignore" ] || echo '*' > "$VENV/.gitignore"

installed="$("$VENV/bin/python" - <<'EOF'
from importlib.metadata import PackageNotFoundError, version
try:
    sdk = version("a2a-sdk")
    version("httpx")
    version("sse-starlette")  # from the [http-server] extra
except PackageNotFoundError:
    sdk = ""
print(sdk)
EOF
)"

case "$installed" in
    1.*)
        echo "interop-venv: $VENV already has a2a-sdk $installed; nothing to do"
        ;;
    *)
        echo "interop-venv: installing 'a2a-sdk[http-server]>=1,<2' and httpx into $VENV" \
            "(found: ${installed:-none})"
        "$VENV/bin/python" -m pip install --quiet --upgrade pip
        "$VENV/bin/python" -m pip install --quiet 'a2a-sdk[http-server]>=1,<2' httpx
        echo "interop-venv: $VENV now has a2a-sdk $("$VENV/bin/python" -c \
            'from importlib.metadata import version; print(version("a2a-sdk"))')"
        ;;
esac
