#!/usr/bin/env bash
# Runs converge's benchmarks briefly and prints one JSON object:
#   steps_per_sec              simulated steps per second, replicaset-level with faults, one core
#   step_cost_ratio_10k_vs_10  cost of a step with 10,000 pods over its cost with 10
#   peer_ratio                 controller-runtime fake client (plain object tracker) ns/op
#                              over converge's API server ns/op, Get+Update of a Pod
#   find_shrink_ms_median      median time to find and shrink the edge-triggered failure
#                              under drop, over 20 seeds
#   crt_reconciles_per_sec     reconciles per second of the unmodified controller-runtime
#                              ReplicaSet reconciler (controllerruntime/examples/replicaset)
#                              in whole runs under random faults, one core
#   workers_speedup            wall time of a fixed fuzzrun campaign (-runs 30 per row, seed 3)
#                              with -workers 1 over its time with -workers 2, two rounds each;
#                              needs two idle cores
#   *_cpu                      the first three figures again from the process's CPU time
#                              (the benchmarks' cpu-ns/step and cpu-ns/op), which a loaded
#                              machine moves less than the wall clock
# Raw benchmark output goes to bench/out/ for benchstat (see BENCHMARKS.md).
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
export GOMAXPROCS=1 # "one core"

go test ./properties/ -run '^$' -bench 'BenchmarkSimulatorSteps' -benchtime 3s >"$out/steps.txt"
go test ./model/ -run '^$' -bench 'BenchmarkStepCost/pods=(10|10000)$' -benchtime 2s >"$out/stepcost.txt"
(cd bench/peer && go test -run '^$' -bench 'BenchmarkGetUpdate/(converge|controller-runtime-fake-plain-tracker)$' -benchtime 2s) >"$out/peer.txt"
go test ./properties/ -run '^$' -bench 'BenchmarkFindAndShrinkEdge' -benchtime 1x >"$out/findshrink.txt"
(cd controllerruntime && go test ./examples/replicaset -run '^$' -bench 'BenchmarkReconcilesPerSecond' -benchtime 3s) >"$out/crt.txt"

# metric FILE BENCHMARK-REGEX UNIT prints the value reported in UNIT.
metric() {
	awk -v re="$2" -v unit="$3" '$1 ~ re { for (i = 3; i < NF; i++) if ($(i+1) == unit) { print $i; exit } }' "$1"
}

steps=$(metric "$out/steps.txt" 'BenchmarkSimulatorSteps' 'steps/s')
small=$(metric "$out/stepcost.txt" 'pods=10(-[0-9]+)?$' 'ns/op')
large=$(metric "$out/stepcost.txt" 'pods=10000' 'ns/op')
ours=$(metric "$out/peer.txt" '/converge' 'ns/op')
peer=$(metric "$out/peer.txt" 'plain-tracker' 'ns/op')
median=$(metric "$out/findshrink.txt" 'BenchmarkFindAndShrinkEdge' 'ms-median')
crt=$(metric "$out/crt.txt" 'BenchmarkReconcilesPerSecond' 'reconciles/s')
stepcpu=$(metric "$out/steps.txt" 'BenchmarkSimulatorSteps' 'cpu-ns/step')
smallcpu=$(metric "$out/stepcost.txt" 'pods=10(-[0-9]+)?$' 'cpu-ns/op')
largecpu=$(metric "$out/stepcost.txt" 'pods=10000' 'cpu-ns/op')
ourscpu=$(metric "$out/peer.txt" '/converge' 'cpu-ns/op')
peercpu=$(metric "$out/peer.txt" 'plain-tracker' 'cpu-ns/op')

# campaign WORKERS prints the wall time of a fixed campaign, in ms.
go build -o "$out/fuzzrun" ./cmd/fuzzrun
campaign() {
	local start
	start=$(date +%s%N)
	env -u GOMAXPROCS "$out/fuzzrun" -runs 30 -seed 3 -workers "$1" >/dev/null 2>&1 || true # its exit code says whether rows showed what they must
	echo $((($(date +%s%N) - start) / 1000000))
}
one=0 two=0
for _ in 1 2; do
	one=$((one + $(campaign 1)))
	two=$((two + $(campaign 2)))
done
echo "workers=1 ${one}ms workers=2 ${two}ms" >"$out/workers.txt"

for v in "$steps" "$small" "$large" "$ours" "$peer" "$median" "$crt" "$one" "$two" "$stepcpu" "$smallcpu" "$largecpu" "$ourscpu" "$peercpu"; do
	if [ -z "$v" ]; then echo "report.sh: a benchmark produced no figure; see $out/" >&2; exit 1; fi
done

awk -v steps="$steps" -v small="$small" -v large="$large" -v ours="$ours" -v peer="$peer" -v median="$median" -v crt="$crt" -v one="$one" -v two="$two" \
	-v stepcpu="$stepcpu" -v smallcpu="$smallcpu" -v largecpu="$largecpu" -v ourscpu="$ourscpu" -v peercpu="$peercpu" 'BEGIN {
	printf "{\"steps_per_sec\": %.0f, \"step_cost_ratio_10k_vs_10\": %.2f, \"peer_ratio\": %.1f, \"find_shrink_ms_median\": %.1f, \"crt_reconciles_per_sec\": %.0f, \"workers_speedup\": %.2f, \"steps_per_sec_cpu\": %.0f, \"step_cost_ratio_10k_vs_10_cpu\": %.2f, \"peer_ratio_cpu\": %.1f}\n",
		steps, large / small, peer / ours, median, crt, one / two, 1e9 / stepcpu, largecpu / smallcpu, peercpu / ourscpu
}'
