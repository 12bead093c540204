#!/usr/bin/env bash
# Install Chromium and its WebDriver (chromedriver), which the inspector's browser tests
# (tests/inspector) drive headless with Selenium, from the distribution's packages (Debian:
# chromium and chromium-driver). Idempotent: does nothing when /usr/bin/chromium and
# /usr/bin/chromedriver are there. Needs root (or sudo) the first time. No browser is downloaded
# by any other means.
set -euo pipefail

if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
    exit 0
fi
if ! command -v apt-get >/dev/null; then
    echo "chromium: no apt-get here; install Chromium and a matching chromedriver at" \
        "/usr/bin/chromium and /usr/bin/chromedriver with your package manager" >&2
    exit 1
fi

sudo=""
if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null \
        || { echo "chromium: need root or sudo to apt-get install chromium" >&2; exit 1; }
    sudo="sudo"
fi
echo "chromium: installing chromium and chromium-driver with apt-get"
# A stale package index makes the install 404: refresh it once if the first try fails.
if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; then
    $sudo apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
fi
[ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]
