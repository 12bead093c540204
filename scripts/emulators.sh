#!/usr/bin/env bash
# Install (once) every local emulator the adapter tests start: each scripts/emulators/*.sh
# installs one and is idempotent. The tests themselves start and stop the emulators; a missing
# emulator fails the suite rather than skipping tests.
set -euo pipefail
cd "$(dirname "$0")/.."
for installer in scripts/emulators/*.sh; do
    [ -e "$installer" ] || continue
    bash "$installer"
done
