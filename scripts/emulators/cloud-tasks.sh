#!/usr/bin/env bash
# Make sure the Cloud Tasks emulator the GCP runtime tests start is installed: the PyPI package
# gcloud-tasks-emulator in its own virtualenv, .emulators/cloud-tasks-venv (it pins an old
# protobuf that cannot share .venv with google-cloud-*).
# Idempotent: does nothing when the pinned version is there already.
# The tests (tests/gcp/runtime/conftest.py) start and stop the emulator themselves.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/pinned-venv.sh

pinned_venv "cloud tasks emulator" gcloud-tasks-emulator 0.6.2 .emulators/cloud-tasks-venv
