#!/usr/bin/env bash
# Install wrk, the HTTP load generator the benchmarks' throughput section drives (bench/README.md),
# from the distribution's packages (Debian/Ubuntu: apt-get). Idempotent: does nothing when wrk
# is already on PATH. Needs root (or sudo) the first time.
set -euo pipefail

if command -v wrk >/dev/null; then
    exit 0
fi
if ! command -v apt-get >/dev/null; then
    echo "wrk: no apt-get here; install wrk (https://github.com/wg/wrk) with your package manager" >&2
    exit 1
fi

sudo=""
if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "wrk: need root or sudo to apt-get install wrk" >&2; exit 1; }
    sudo="sudo"
fi
echo "wrk: installing wrk with apt-get"
# A stale package index makes the install 404: refresh it once if the first try fails.
if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; then
    $sudo apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null
fi
command -v wrk >/dev/null
