#!/usr/bin/env bash
# Runs the suite of public operators (operators/, docs in operators/README.md)
# and prints, per operator: its cold build time (its test binary built with
# an empty build cache, the standard library and every dependency
# included), runs and reconciles per second of whole runs under random
# schedules of every faithful fault (KubeRay: all but time travel) and runs
# per CPU-second, and the depth an exploration under every faithful fault
# finishes within its budget, each depth with its wall and CPU time.
#
#   scripts/operators.sh                  # every operator, 60 s explorations
#   scripts/operators.sh kuberay          # one operator
#   EXPLORE_BUDGET=10s scripts/operators.sh
#
# The figures are in BENCHMARKS.md, "Public operators".
set -euo pipefail
cd "$(dirname "$0")/../operators"

budget=${EXPLORE_BUDGET:-60s}
ops=("$@")
if [ ${#ops[@]} -eq 0 ]; then
	ops=(kuberay trustmanager agentsandbox)
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for op in "${ops[@]}"; do
	echo "== $op"
	cache="$work/cache-$op"
	start=$(date +%s)
	GOCACHE="$cache" go test -c -o "$work/$op.test" "./$op"
	echo "cold build: $(( $(date +%s) - start )) s"
	rm -rf "$cache"
	"$work/$op.test" -test.run '^(TestMeasure|TestExplore)$' -test.v \
		-operators.measure -operators.explore="$budget" 2>&1 |
		grep -E 'MEASURE|EXPLORE|no counterexample|FAIL|panic:' || true
done
