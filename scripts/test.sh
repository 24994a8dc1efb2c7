#!/usr/bin/env bash
# Every test: the Rust workspace's, then the Python bindings' (pytest over
# crates/python/tests and crates/python/selftest) against the package
# built from this tree.
#
# The Python side needs nothing preinstalled but python3 (3.9 or later)
# with its venv module: a virtual environment under target/ gets maturin
# and pytest from the package registry, and the package is built into it
# in release mode in the workspace's target directory (so the crates the
# Rust tests built are reused, not built again).
set -euo pipefail
cd "$(dirname "$0")/.."

cargo test --workspace --release

venv=target/py-venv
python=${PYTHON:-python3}
if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'maturin>=1.9.4,<2' pytest
# maturin's build hook runs the `maturin` command: the one in the venv.
PATH="$PWD/$venv/bin:$PATH" "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    --no-build-isolation --force-reinstall --no-deps ./crates/python

# crates/python/tests: the classad2 API against classad2 (or its recorded
# answers); crates/python/selftest: the batch operations against the slow
# paths they shortcut. pytest exits 5 when it collects no test: that is a
# failure here, not a pass.
status=0
"$venv/bin/python" -m pytest -q crates/python/tests crates/python/selftest "$@" || status=$?
if [ "$status" -eq 5 ]; then
    echo "scripts/test.sh: pytest collected no test under crates/python" >&2
fi
exit "$status"
