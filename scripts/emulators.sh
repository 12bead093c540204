#!/usr/bin/env bash
# Install (once) every local emulator the adapter tests start: each scripts/emulators/*.sh
# installs one and is idempotent. The tests themselves start and stop the emulators; a missing
# emulator fails the suite rather than skipping tests.
set -euo pipefail
cd "$(dirname "$0")/.."
installers=(scripts/emulators/*.sh)
total=${#installers[@]}
step=0
for installer in "${installers[@]}"; do
    [ -e "$installer" ] || continue
    step=$((step + 1))
    name="$(basename "$installer" .sh)"
    started=$SECONDS
    echo "emulators: [$step/$total] $name"
    bash "$installer"
    echo "emulators: [$step/$total] $name ready ($((SECONDS - started)) s)"
done
