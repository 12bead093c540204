#!/usr/bin/env bash
# Make sure checkov (the static analyser the deploy tests run on infra/ and on serverless.yml's
# CloudFormation) is installed: the PyPI package checkov in its own virtualenv,
# .emulators/checkov-venv (its pinned dependencies must not share .venv with the project's).
# Idempotent: does nothing when the pinned version is there already.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/pinned-venv.sh

pinned_venv checkov checkov 3.3.30 .emulators/checkov-venv checkov
