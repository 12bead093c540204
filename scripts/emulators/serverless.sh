#!/usr/bin/env bash
# Install the deployment tooling the deploy tests (tests/deploy/) run:
#  - node_modules/: osls (as `serverless`), serverless-python-requirements, serverless-offline
#    and serverless-offline-sqs, exactly as package-lock.json pins them (`npm ci`); needs
#    Node >= 20.19;
#  - .emulators/cfn-lint-venv: cfn-lint, pinned, in its own virtualenv (not the project's).
# checkov comes from scripts/emulators/checkov.sh. Idempotent: does nothing when both are there
# and match the pins.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/pinned-venv.sh

# --- node_modules ---------------------------------------------------------------------------
stamp="node_modules/.a2a-serverless-lock"
wanted="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ] || [ ! -x node_modules/.bin/serverless ]; then
    command -v npm >/dev/null || {
        echo "serverless: npm (Node >= 20.19) is needed to install the deployment tooling" >&2
        exit 1
    }
    echo "serverless: installing osls, serverless-python-requirements, serverless-offline(-sqs) (npm ci)"
    npm ci --no-audit --no-fund --loglevel=error
    echo "$wanted" > "$stamp"
fi

# --- cfn-lint -------------------------------------------------------------------------------
pinned_venv serverless cfn-lint 1.58.0 .emulators/cfn-lint-venv cfn-lint
