#!/usr/bin/env bash
# Create or refresh the project's virtualenv (.venv) with the package and its test tools.
# Idempotent and quick when nothing changed: it reinstalls only when pyproject.toml changes.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    echo "bootstrap: creating .venv with $($PYTHON --version)"
    "$PYTHON" -m venv .venv
fi

stamp=.venv/.a2a-serverless-installed
wanted="$(sha256sum pyproject.toml | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
    echo "bootstrap: installing a2a-serverless (editable) with its server and test extras"
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet -e '.[server,test]'
    echo "$wanted" > "$stamp"
fi
