#!/usr/bin/env bash
# Prints the interpreter `make` builds .venv with: the first of python3.12, python3.13 and
# pyenv's installed 3.12 and 3.13 that runs and is 3.12 or newer, else python3.
# Why 3.12: there coverage follows the lines through sys.monitoring (COVERAGE_CORE=sysmon),
# which takes the unit run about half the CPU time that 3.11's line tracer takes. The code
# is still held to 3.11 by ruff and mypy (pyproject.toml); `make PYTHON=python3.11 test`
# with a fresh .venv runs every check on 3.11.
set -u
at_least_312() {
	"$1" -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1
}
pyenv_root=${PYENV_ROOT:-$HOME/.pyenv}
for candidate in python3.12 python3.13 \
	"$pyenv_root"/versions/3.12*/bin/python3.12 "$pyenv_root"/versions/3.13*/bin/python3.13; do
	if at_least_312 "$candidate"; then
		echo "$candidate"
		exit 0
	fi
done
echo python3
