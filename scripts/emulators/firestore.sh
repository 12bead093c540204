#!/usr/bin/env bash
# Make sure the Firestore emulator the GCP tests start is installed: the Google Cloud CLI
# (gcloud), its cloud-firestore-emulator component, and Java 11+ (21+ recommended).
# Idempotent: does nothing when everything is there. Installs the component with
# `gcloud components install` only when it is missing and the CLI's component manager is
# enabled; otherwise says what to install and fails.
# The tests (tests/gcp/conftest.py) start and stop the emulator themselves.
set -euo pipefail

fail() {
    echo "firestore emulator: $*" >&2
    exit 1
}

command -v gcloud >/dev/null 2>&1 \
    || fail "gcloud not found. Install the Google Cloud CLI: https://cloud.google.com/sdk/docs/install"
command -v java >/dev/null 2>&1 \
    || fail "java not found. The Firestore emulator needs a Java runtime (11+, 21+ recommended)."

sdk_root="$(gcloud info --format='value(installation.sdk_root)' 2>/dev/null)" \
    || fail "'gcloud info' failed; is the Google Cloud CLI installed correctly?"
jar="$sdk_root/platform/cloud-firestore-emulator/cloud-firestore-emulator.jar"

if [ -f "$jar" ]; then
    exit 0
fi

echo "firestore emulator: component cloud-firestore-emulator missing; installing it"
if gcloud components install cloud-firestore-emulator --quiet; then
    [ -f "$jar" ] || fail "installed cloud-firestore-emulator, but $jar is still missing"
    exit 0
fi
fail "could not install the cloud-firestore-emulator component. If the Google Cloud CLI came \
from a system package (apt/yum), its component manager is disabled: install the package \
google-cloud-cli-firestore-emulator instead (e.g. sudo apt-get install \
google-cloud-cli-firestore-emulator)."
