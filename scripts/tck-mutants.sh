#!/usr/bin/env bash
# Runs the TCK's mutant suite (tck: MutantSuiteTest, 50+ single-bug providers over mem://,
# and MutantControlsTest, two controls)
# RUNS times (default 10). Every mutant must be caught in every run and the controls must pass every run;
# the script stops at the first run that fails and names it. Usage: scripts/tck-mutants.sh [RUNS] [MUTANT,...]
# (the second argument runs only those mutants, the controls NO_OP and LATENCY_ONLY among them if named).
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-10}"
only="${2:-}"
started=$SECONDS
for run in $(seq 1 "$runs"); do
  echo "tck-mutants: run $run of $runs"
  run_started=$SECONDS
  mkdir -p tck/target
  if ! ./mvnw -o -B -ntp -q -pl tck -am verify -Dtest='MutantSuiteTest,MutantControlsTest' -Dsurefire.failIfNoSpecifiedTests=false \
      ${only:+-Dlocksmith.tck.mutants=$only} > "tck/target/tck-mutants-run-$run.log" 2>&1; then
    echo "tck-mutants: run $run FAILED; see tck/target/tck-mutants-run-$run.log and tck/target/surefire-reports" >&2
    exit 1
  fi
  rm -f "tck/target/tck-mutants-run-$run.log"
  summary=$(grep -h '^Tests run' tck/target/surefire-reports/io.locksmith.tck.selftest.Mutant{Suite,Controls}Test.txt \
    | tr '\n' ' ' || true)
  echo "tck-mutants: run $run passed in $((SECONDS - run_started)) s ($summary)"
done
echo "tck-mutants: every mutant was caught and the controls passed in $runs of $runs runs ($((SECONDS - started)) s)"
