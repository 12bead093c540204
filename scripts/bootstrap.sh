#!/usr/bin/env bash
# Create or refresh the project's virtualenv (.venv) with the package, the cloud adapters
# (adapters/aws, adapters/gcp) and their test tools, all editable.
# Idempotent and quick when nothing changed: it reinstalls only when a pyproject.toml changes.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    echo "bootstrap: creating .venv with $($PYTHON --version)"
    "$PYTHON" -m venv .venv
fi

stamp=.venv/.a2a-serverless-installed
wanted="$(cat pyproject.toml adapters/*/pyproject.toml | sha256sum | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
    echo "bootstrap: installing a2a-serverless and its adapters (editable) with their test extras"
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet -e '.[server,test]' \
        -e 'adapters/aws[test]' -e 'adapters/gcp[test]'
    echo "$wanted" > "$stamp"
fi
