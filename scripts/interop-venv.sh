#!/usr/bin/env bash
# Create or refresh .venv-a2a-sdk1: a separate virtualenv holding the official a2a-sdk 1.x.
#
# a2a-sdk 1.x cannot be installed next to the 0.3.26 in .venv, yet the interop suite checks that
# a 1.x client (in its protocol-0.3 compatibility mode) talks to our server too:
# tests/interop/test_sdk1.py runs tests/interop/sdk1_client.py with this venv's python. And
# tests/a2a_sdk runs our dev server here, serving 1.x AgentExecutors (a2a_serverless.a2a_sdk):
# so this venv also gets this package's own dependencies and the `server` extra's (read from
# pyproject.toml), not the package itself: the tests put the checkout on PYTHONPATH.
# Idempotent: does nothing when a 1.x a2a-sdk and all of those are already installed there.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=.venv-a2a-sdk1
# The interpreter of .venv (scripts/bootstrap.sh: Python 3.12, the deployments'), so our server
# runs on the same Python in every test; python3 when there is no .venv yet.
if [ -x .venv/bin/python ]; then
    PYTHON="${PYTHON:-$(.venv/bin/python -c 'import sys; print(sys._base_executable)')}"
fi
PYTHON="${PYTHON:-python3}"
version() {
    "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true
}

if [ "$(version "$VENV/bin/python")" != "$(version "$PYTHON")" ]; then
    echo "interop-venv: creating $VENV with $($PYTHON --version 2>&1)"
    # --clear: one of another Python is emptied first (what it held is installed again below).
    "$PYTHON" -m venv --clear "$VENV"
fi
# Keep the venv out of git (and so out of ruff, which respects .gitignore).
[ -f "$VENV/.gitignore" ] || echo '*' > "$VENV/.gitignore"

# This package's dependencies and its `server` extra's, one requirement per line.
requirements="$("$VENV/bin/python" - <<'EOF'
import tomllib

with open("pyproject.toml", "rb") as f:
    project = tomllib.load(f)["project"]
print("\n".join(project["dependencies"] + project["optional-dependencies"]["server"]))
EOF
)"

installed="$(REQUIREMENTS="$requirements" "$VENV/bin/python" - <<'EOF'
import os
import re
from importlib.metadata import PackageNotFoundError, version

names = ["httpx", "sse-starlette"]  # sse-starlette: from the [http-server] extra
names += [re.split(r"[\[<>=!~; ]", r, maxsplit=1)[0] for r in os.environ["REQUIREMENTS"].split()]
try:
    sdk = version("a2a-sdk")
    for name in names:
        version(name)
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
        echo "interop-venv: installing 'a2a-sdk[http-server]>=1,<2', httpx and this package's" \
            "dependencies into $VENV (found: ${installed:-none})"
        "$VENV/bin/python" -m pip install --quiet --upgrade pip
        mapfile -t ours <<< "$requirements"
        "$VENV/bin/python" -m pip install --quiet 'a2a-sdk[http-server]>=1,<2' httpx "${ours[@]}"
        echo "interop-venv: $VENV now has a2a-sdk $("$VENV/bin/python" -c \
            'from importlib.metadata import version; print(version("a2a-sdk"))')"
        ;;
esac
