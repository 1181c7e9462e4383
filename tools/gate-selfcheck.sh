#!/usr/bin/env bash
# Proves that `make test` on MAKEFILE (default: Makefile) is an honest gate. Each of its
# stages is swapped for a stub target (gate-stub-pass-NAME or gate-stub-fail-NAME):
#   - with every stub passing, the gate exits 0 and prints its success line;
#   - with any one stub failing, the gate exits non-zero, never prints the success line,
#     names the failing stage, and runs no stage of a later step.
# The stages run in steps, in this order; the stages of one step run side by side.
# Prints one line per case and exits 1 on the first case that does not hold.
set -u
makefile=${1:-Makefile}
steps=("SETUP" "LINT" "TYPECHECK_SITE" "UNIT BROWSER")
stages=()
step_of=()
for s in "${!steps[@]}"; do
	for stage in ${steps[$s]}; do
		stages+=("$stage")
		step_of+=("$s")
	done
done
success="every check passed"

# The make command line with stage number $1 failing (-1: none fails).
overrides() {
	local failing=$1 i=0 args=("GATE_FIRST=")
	for stage in "${stages[@]}"; do
		if [[ $i -eq $failing ]]; then
			args+=("GATE_$stage=gate-stub-fail-$stage")
		else
			args+=("GATE_$stage=gate-stub-pass-$stage")
		fi
		i=$((i + 1))
	done
	printf '%s\n' "${args[@]}"
}

gate() {
	local -a args
	mapfile -t args < <(overrides "$1")
	make --no-print-directory -f "$makefile" test "${args[@]}" 2>&1
}

fail() {
	echo "gate-selfcheck: $makefile: $1" >&2
	exit 1
}

out=$(gate -1)
status=$?
[[ $status -eq 0 ]] || fail "every stage passed, yet make test exited $status"
[[ $out == *"$success"* ]] || fail "every stage passed, yet no '$success' line"
echo "gate-selfcheck: every stage passing: exit 0, success line printed"

for i in "${!stages[@]}"; do
	stage=${stages[$i]}
	out=$(gate "$i")
	status=$?
	[[ $status -ne 0 ]] || fail "stage $stage failed, yet make test exited 0"
	[[ $out != *"$success"* ]] || fail "stage $stage failed, yet make test printed '$success'"
	[[ $out == *"gate stub ran: $stage (failing)"* ]] || fail "stage $stage was never run"
	for j in "${!stages[@]}"; do
		later=${stages[$j]}
		if [[ ${step_of[$j]} -gt ${step_of[$i]} && $out == *"gate stub ran: $later"* ]]; then
			fail "stage $stage failed, yet stage $later, of a later step, ran"
		fi
	done
	echo "gate-selfcheck: stage $stage failing: exit $status, no success line, no later step"
done
