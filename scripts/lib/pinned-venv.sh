# Sourced by the installers in scripts/emulators/: a PyPI tool pinned in a virtualenv of its
# own under .emulators/ (its dependencies must not share .venv with the project's).
#
#   pinned_venv LABEL PACKAGE VERSION VENV [EXECUTABLE]
#
# Does nothing when VENV has PACKAGE==VERSION (and, if named, bin/EXECUTABLE); otherwise creates
# VENV with $PYTHON (default python3) when it has no python, and pip installs the pin.
pinned_venv() {
    local label="$1" package="$2" version="$3" venv="$4" executable="${5:-}"
    local installed
    installed="$("$venv/bin/python" -c \
        "import importlib.metadata as m; print(m.version('$package'))" 2>/dev/null || true)"
    if [ "$installed" = "$version" ] && { [ -z "$executable" ] || [ -x "$venv/bin/$executable" ]; }; then
        return 0
    fi
    echo "$label: installing $package==$version into $venv"
    mkdir -p .emulators
    [ -x "$venv/bin/python" ] || "${PYTHON:-python3}" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet "$package==$version" \
        || { echo "$label: pip install failed" >&2; return 1; }
}
