#!/usr/bin/env bash
# Mutation testing of the mem:// store (lock-api, io.locksmith.mem) with the kit as its test suite (MemTck).
# PIT's Maven plugin mutates only the classes of the module it runs in, and the store and the kit live in two
# modules, so this runs PIT's command line with lock-api's classes as the mutable code path.
# Usage: scripts/pit-mem.sh [THREADS] [SUITE]
#   SUITE kit (default): the kit alone, the measure of the kit's power (report: target/pit-mem/mutations.csv, .xml)
#   SUITE store: the kit and lock-api's own unit tests of io.locksmith.mem (MemStore's test helpers and the URI
#                grammar, which no store-generic rule can reach) (report: target/pit-mem-store/)
set -euo pipefail
cd "$(dirname "$0")/.."
threads="${1:-2}"
suite="${2:-kit}"
pit_version=1.30.2
junit5_plugin_version=1.2.3
./mvnw -B -ntp -q -pl tck -am test-compile -DskipTests
mkdir -p target
./mvnw -B -ntp -q -pl tck dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile="$PWD/target/pit-tck-classpath.txt"
repo="$(./mvnw -B -ntp -q help:evaluate -Dexpression=settings.localRepository -DforceStdout)"
jar() { # groupId artifactId version
  local path="$repo/${1//.//}/$2/$3/$2-$3.jar"
  [ -f "$path" ] || ./mvnw -B -ntp -q dependency:get -Dartifact="$1:$2:$3" >/dev/null
  echo "$path"
}
tool="$(jar org.pitest pitest-command-line $pit_version):$(jar org.pitest pitest-entry $pit_version)"
tool="$tool:$(jar org.pitest pitest $pit_version):$(jar org.pitest pitest-junit5-plugin $junit5_plugin_version)"
tool="$tool:$(jar org.apache.commons commons-text 1.14.0):$(jar org.apache.commons commons-lang3 3.18.0)"
test_classpath="$(tr ':' '\n' < target/pit-tck-classpath.txt | grep -v '/locksmith-api-')"
tool="$tool:$(echo "$test_classpath" | grep -E 'junit-platform|junit-jupiter|opentest4j' | paste -sd:)"
tests='io.locksmith.tck.MemTck,io.locksmith.tck.MemListingTest,io.locksmith.tck.MemRegistryTest'
report=target/pit-mem
extra_classes=""
case "$suite" in
  kit) ;;
  store) tests="$tests,io.locksmith.mem.*Test"; report=target/pit-mem-store; extra_classes="$PWD/lock-api/target/test-classes," ;;
  *) echo "pit-mem: SUITE must be kit or store, was '$suite'" >&2; exit 2 ;;
esac
classpath="$extra_classes$PWD/lock-api/target/classes,$PWD/tck/target/classes,$PWD/tck/target/test-classes,$(echo "$test_classpath" | paste -sd,)"
java -cp "$tool" org.pitest.mutationtest.commandline.MutationCoverageReport \
  --reportDir "$report" --targetClasses 'io.locksmith.mem.*' --targetTests "$tests" \
  --sourceDirs lock-api/src/main/java --classPath "$classpath" --mutableCodePaths "$PWD/lock-api/target/classes" \
  --threads "$threads" --timeoutConst 20000 --outputFormats CSV,XML --timestampedReports=false
