#!/usr/bin/env bash
# Make sure the Cloud Tasks emulator the GCP runtime tests start is installed: the PyPI package
# gcloud-tasks-emulator in its own virtualenv, .emulators/cloud-tasks-venv (it pins an old
# protobuf that cannot share .venv with google-cloud-*).
# Idempotent: does nothing when the pinned version is there already.
# The tests (tests/gcp/runtime/conftest.py) start and stop the emulator themselves.
set -euo pipefail
cd "$(dirname "$0")/../.."

VERSION="0.6.2"
VENV=".emulators/cloud-tasks-venv"
PYTHON="${PYTHON:-python3}"

installed="$("$VENV/bin/python" -c \
    'import importlib.metadata as m; print(m.version("gcloud-tasks-emulator"))' 2>/dev/null || true)"
if [ "$installed" = "$VERSION" ]; then
    exit 0
fi

echo "cloud tasks emulator: installing gcloud-tasks-emulator==$VERSION into $VENV"
mkdir -p .emulators
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet "gcloud-tasks-emulator==$VERSION" \
    || { echo "cloud tasks emulator: pip install failed" >&2; exit 1; }
