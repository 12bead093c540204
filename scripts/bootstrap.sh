#!/usr/bin/env bash
# Create or refresh the project's virtualenvs with the package, the cloud adapters
# (adapters/aws, adapters/gcp) and their test tools, all editable:
# - .venv on Python 3.12, the Python every deployment we ship runs (Lambda python3.12, Cloud
#   Functions python312): the whole suite, ruff and mypy run there;
# - with --py311 (scripts/test), also .venv-py311 on Python 3.11, the oldest Python the package
#   supports (requires-python): the core's tests run there too, so what 3.11 does differently
#   stays covered.
# Each interpreter is $PYTHON / $PYTHON311 if set, else pyenv's, else python3.12 / python3.11
# on PATH; none of that version stops the script with what to install.
# Idempotent and quick when nothing changed: a venv is rebuilt only when its Python is not the
# wanted version, and reinstalled only when a pyproject.toml changes.
set -euo pipefail
cd "$(dirname "$0")/.."

# The interpreter of version $1 ("3.12"): $2 if given, else pyenv's newest, else python$1.
find_python() {
    local version="$1" given="$2" candidate
    local pyenv_root="${PYENV_ROOT:-$HOME/.pyenv}"
    local candidates=()
    if [ -n "$given" ]; then
        candidates=("$given")
    else
        # Newest first; a pyenv shim may exist and not run, hence the check below.
        mapfile -t candidates < <(ls -d "$pyenv_root"/versions/"$version".*/bin/python"$version" \
            2>/dev/null | sort -rV)
        candidates+=("$(command -v "python$version" || true)")
    fi
    for candidate in "${candidates[@]}"; do
        if [ -n "$candidate" ] && [ "$(venv_version "$candidate")" = "$version" ]; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}

venv_version() {
    "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true
}

# bootstrap_venv DIR VERSION PYTHON: DIR is a venv of PYTHON (rebuilt when of another version)
# with everything installed.
bootstrap_venv() {
    local dir="$1" version="$2" python="$3"
    if [ "$(venv_version "$dir/bin/python")" != "$version" ]; then
        if [ -e "$dir/bin/python" ]; then
            echo "bootstrap: $dir is on Python $(venv_version "$dir/bin/python"), not $version: rebuilding it"
        fi
        echo "bootstrap: creating $dir with $("$python" --version)"
        # --clear: an existing directory (or what a symlink there points to) is emptied first.
        "$python" -m venv --clear "$dir"
    fi
    # Keep the venv out of git (and so out of ruff, which respects .gitignore).
    [ -f "$dir/.gitignore" ] || echo '*' > "$dir/.gitignore"
    local stamp="$dir/.a2a-serverless-installed"
    local wanted
    wanted="$(cat pyproject.toml adapters/*/pyproject.toml | sha256sum | cut -d' ' -f1)"
    if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
        echo "bootstrap: installing a2a-serverless and its adapters (editable) into $dir"
        "$dir/bin/python" -m pip install --quiet --upgrade pip
        "$dir/bin/python" -m pip install --quiet -e '.[server,test]' \
            -e 'adapters/aws[test]' -e 'adapters/gcp[test]'
        echo "$wanted" > "$stamp"
    fi
}

missing() {
    local looked="$2"
    [ -n "$looked" ] || looked="pyenv's versions and python$1 on PATH"
    echo "bootstrap: no Python $1 found (looked at $looked)." >&2
    echo "  $3 Install it (e.g. \`pyenv install $1\`), or set $4 to its path." >&2
    exit 1
}

python312="$(find_python 3.12 "${PYTHON:-}")" || missing 3.12 "${PYTHON:-}" \
    "The suite runs on the Python the deployments run (Lambda python3.12, Cloud Functions python312)." PYTHON
bootstrap_venv .venv 3.12 "$python312"

if [ "${1:-}" = "--py311" ]; then
    python311="$(find_python 3.11 "${PYTHON311:-}")" || missing 3.11 "${PYTHON311:-}" \
        "scripts/test also runs the core's tests on the oldest Python the package supports." \
        PYTHON311
    bootstrap_venv .venv-py311 3.11 "$python311"
fi
