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

CFN_LINT_VERSION="1.58.0"
CFN_LINT_VENV=".emulators/cfn-lint-venv"
PYTHON="${PYTHON:-python3}"

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
installed="$("$CFN_LINT_VENV/bin/python" -c \
    'import importlib.metadata as m; print(m.version("cfn-lint"))' 2>/dev/null || true)"
if [ "$installed" != "$CFN_LINT_VERSION" ] || [ ! -x "$CFN_LINT_VENV/bin/cfn-lint" ]; then
    echo "serverless: installing cfn-lint==$CFN_LINT_VERSION into $CFN_LINT_VENV"
    mkdir -p .emulators
    [ -x "$CFN_LINT_VENV/bin/python" ] || "$PYTHON" -m venv "$CFN_LINT_VENV"
    "$CFN_LINT_VENV/bin/python" -m pip install --quiet "cfn-lint==$CFN_LINT_VERSION"
fi
