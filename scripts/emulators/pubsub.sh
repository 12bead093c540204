#!/usr/bin/env bash
# Make sure the Pub/Sub emulator the GCP runtime tests start is installed: the Google Cloud CLI
# (gcloud), its pubsub-emulator component, and Java.
# Idempotent: does nothing when everything is there. Installs the component with
# `gcloud components install` when the CLI's component manager is enabled, else with apt-get
# (package google-cloud-cli-pubsub-emulator) when gcloud itself came from apt; otherwise says
# what to install and fails.
# The tests (tests/gcp/runtime/conftest.py) start and stop the emulator themselves.
set -euo pipefail

fail() {
    echo "pubsub emulator: $*" >&2
    exit 1
}

command -v gcloud >/dev/null 2>&1 \
    || fail "gcloud not found. Install the Google Cloud CLI: https://cloud.google.com/sdk/docs/install"
command -v java >/dev/null 2>&1 \
    || fail "java not found. The Pub/Sub emulator needs a Java runtime (11+)."

sdk_root="$(gcloud info --format='value(installation.sdk_root)' 2>/dev/null)" \
    || fail "'gcloud info' failed; is the Google Cloud CLI installed correctly?"
launcher="$sdk_root/platform/pubsub-emulator/bin/cloud-pubsub-emulator"

if [ -x "$launcher" ]; then
    exit 0
fi

echo "pubsub emulator: component pubsub-emulator missing; installing it"
if gcloud components install pubsub-emulator --quiet; then
    [ -x "$launcher" ] || fail "installed pubsub-emulator, but $launcher is still missing"
    exit 0
fi
if dpkg -s google-cloud-cli >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    if $sudo_cmd apt-get install -y google-cloud-cli-pubsub-emulator; then
        [ -x "$launcher" ] || fail "installed google-cloud-cli-pubsub-emulator, but $launcher is missing"
        exit 0
    fi
fi
fail "could not install the pubsub-emulator component. If the Google Cloud CLI came from a \
system package (apt/yum), its component manager is disabled: install the package \
google-cloud-cli-pubsub-emulator instead (e.g. sudo apt-get install \
google-cloud-cli-pubsub-emulator)."
