#!/usr/bin/env bash
# Make sure the Cloud Storage emulator the GCP tests start is installed: the PyPI package
# gcp-storage-emulator in its own virtualenv, .emulators/cloud-storage-venv (its pins need not
# agree with .venv's google-cloud-*).
# Idempotent: does nothing when the pinned version is there already.
# The tests (tests/gcp/conftest.py) start and stop the emulator themselves.
set -euo pipefail
cd "$(dirname "$0")/../.."

VERSION="2026.7.19"
VENV=".emulators/cloud-storage-venv"
PYTHON="${PYTHON:-python3}"

installed="$("$VENV/bin/python" -c \
    'import importlib.metadata as m; print(m.version("gcp-storage-emulator"))' 2>/dev/null || true)"
if [ "$installed" = "$VERSION" ]; then
    exit 0
fi

echo "cloud storage emulator: installing gcp-storage-emulator==$VERSION into $VENV"
mkdir -p .emulators
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet "gcp-storage-emulator==$VERSION" \
    || { echo "cloud storage emulator: pip install failed" >&2; exit 1; }
