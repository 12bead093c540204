#!/usr/bin/env bash
# Make sure checkov (the static analyser the deploy tests run on infra/ and on serverless.yml's
# CloudFormation) is installed: the PyPI package checkov in its own virtualenv,
# .emulators/checkov-venv (its pinned dependencies must not share .venv with the project's).
# Idempotent: does nothing when the pinned version is there already.
set -euo pipefail
cd "$(dirname "$0")/../.."

VERSION="3.3.30"
VENV=".emulators/checkov-venv"
PYTHON="${PYTHON:-python3}"

installed="$("$VENV/bin/python" -c \
    'import importlib.metadata as m; print(m.version("checkov"))' 2>/dev/null || true)"
if [ "$installed" = "$VERSION" ] && [ -x "$VENV/bin/checkov" ]; then
    exit 0
fi

echo "checkov: installing checkov==$VERSION into $VENV"
mkdir -p .emulators
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet "checkov==$VERSION" \
    || { echo "checkov: pip install failed" >&2; exit 1; }
