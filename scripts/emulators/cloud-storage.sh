#!/usr/bin/env bash
# Make sure the Cloud Storage emulator the GCP tests start is installed: the PyPI package
# gcp-storage-emulator in its own virtualenv, .emulators/cloud-storage-venv (its pins need not
# agree with .venv's google-cloud-*).
# Idempotent: does nothing when the pinned version is there already.
# The tests (tests/gcp/conftest.py) start and stop the emulator themselves.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/pinned-venv.sh

pinned_venv "cloud storage emulator" gcp-storage-emulator 2026.7.19 .emulators/cloud-storage-venv
