#!/usr/bin/env bash
# Runs every test of every module against real servers, installing the servers first if needed, then builds every
# consumer project under examples/consumers/ against the artifacts just installed (they import the BOM, which
# Maven cannot do from inside the reactor that builds it), and the Java 25 pass (scripts/test-java25.sh: lock-api,
# the Jedis kit, the starter, the virtual-thread workload and the reactive and Kotlin modules on a JDK 25, with the
# classes and artifacts of step 1), which fails the build if it fails or if no JDK 25 is installed. What CI
# runs (.ci/run).
#
# Two steps, so that modules test side by side:
#   1. one reactor build (-T 1C) compiles, packages and installs every module, tests compiled but not run;
#   2. the tests of each module (and each consumer project's build, and the Java 25 pass) run in a Maven process of
#      their own,
#      LOCKSMITH_TEST_JOBS of them at a time (default 2: with the Redis Cluster, Lettuce and standby suites, three
#      at a time loaded the 2 cores to 15-25 and timing-bound rules failed), the slowest suites first.
# A reactor with -T would not do: Maven 3 starts a module only once every module it depends on has run all of its
# tests, so the kit's self-tests, the backends, safety and the integration tests would still run one after the
# other. Most tests wait on leases, servers and timers, so one module at a time left the two cores about half
# idle. Ports and iptables marks are reserved across JVMs (FreePorts, LoopbackFirewall).
#
# Each job's output is printed whole when it ends (never interleaved), and kept in target/test-all/; a table
# of every job closes the run. A failed job does not stop the others; the script fails at the end.
# Arguments go to every Maven call, e.g. -Dlocksmith.test.forks=1 (test JVMs per module; default 3).
set -euo pipefail
cd "$(dirname "$0")/.."

jobs_at_once="${LOCKSMITH_TEST_JOBS:-2}"
# The slowest jobs first, so that the last ones to start are short (measured 2026-12-03 in CI: backend-redis 7.3 min,
# safety 6.1, tck 4.8, backend-etcd 4.3, backend-zookeeper 2.9, the Java 25 pass 2; see README). Modules not named
# here run after these, in the reactor's order. "java25" is the Java 25 pass, a job of its own (below).
slowest_first=(backend-redis safety tck backend-etcd backend-zookeeper java25 integration-tests lockctl-cli
  examples/spring-boot-app)

# Step 1 installs into a local repository of this run's own, in front of the usual one (only read from), and
# step 2 resolves every module it does not test from there: two runs of different trees on one machine must
# never test each other's jars. LOCKSMITH_MAVEN_REPO names the usual one if it is not ~/.m2/repository.
maven=(./mvnw -B -ntp -Dmaven.repo.local="$PWD/target/local-repository"
  -Dmaven.repo.local.tail="${LOCKSMITH_MAVEN_REPO:-$HOME/.m2/repository}")

bash scripts/install-servers.sh
started=$SECONDS

echo "== step 1: build and install every module (tests compiled, not run)"
# One thread per core: javac and javadoc of modules that do not depend on each other run side by side.
"${maven[@]}" -T 1C install -DskipTests "$@"

# The reactor's modules (those of nested aggregators included) that have tests.
modules_of() { # pom directory ('.' for the root) -> its modules, recursively
  local dir=$1 module
  for module in $(grep -o '<module>[^<]*</module>' "$dir/pom.xml" | sed 's:</*module>::g'); do
    module="${dir#./}${dir:+/}$module"
    module="${module#./}"
    echo "$module"
    if grep -q '<module>' "$module/pom.xml"; then modules_of "$module"; fi
  done
}
tested=()
for module in "${slowest_first[@]}" $(modules_of .); do
  if [ "$module" = java25 ]; then
    tested+=(java25)
  elif [ -d "$module/src/test" ] && [[ " ${tested[*]} " != *" $module "* ]]; then
    if [ ! -d "$module/target/test-classes" ]; then
      echo "test-all: $module has tests but step 1 did not compile them (not in the active reactor?)" >&2
      exit 1
    fi
    tested+=("$module")
  fi
done
consumers=()
for consumer in examples/consumers/*/; do
  if [ -f "${consumer}pom.xml" ]; then consumers+=("${consumer%/}"); fi
done

logs=target/test-all
rm -rf "$logs"
mkdir -p "$logs"
print_lock="$logs/.print"
: > "$print_lock"

# One job: its output goes to a file, printed whole (under a lock) when the job ends.
run_job() { # name, command...
  local name=$1 log="$logs/${1//\//_}.log" job_started=$SECONDS status
  shift
  if "$@" > "$log" 2>&1; then status=passed; else status=FAILED; fi
  local took=$((SECONDS - job_started))
  # CPU seconds (user + system) of the job's Maven and everything it waited for: test JVMs, servers, victims.
  times > "$log.times" # in this shell: its second line is what the children used
  local cpu
  cpu=$(awk 'NR == 2 { n = 0; for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); n += t[1] * 60 + t[2] }; printf "%d", n }' \
    "$log.times")
  rm -f "$log.times"
  local tests
  tests=$(sed -n 's/^\[[A-Z]*\] Tests run: \([0-9]*\), Failures: \([0-9]*\), Errors: \([0-9]*\), Skipped: \([0-9]*\)$/\1 tests, \2 failures, \3 errors, \4 skipped/p' "$log" | tail -1)
  {
    flock 9
    echo "== ${status}: $name in $((took / 60)) min $((took % 60)) s, ${cpu} s of CPU (${tests:-no test summary})"
    cat "$log"
    printf '%-32s %-7s %3d:%02d  cpu %5s s  %s\n' "$name" "$status" $((took / 60)) $((took % 60)) "$cpu" \
      "$tests" >> "$logs/summary"
  } 9>> "$print_lock"
  [ "$status" = passed ]
}

# Each job in a process group of its own, so that an interrupted run stops every Maven and test JVM it started.
set -m
pids=()
trap 'for pid in "${pids[@]}"; do kill -- "-$pid" 2>/dev/null || true; done; exit 130' INT TERM
launch() { # name, command...
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_at_once" ]; do
    wait -n || true # a job's result is its line in the summary
  done
  run_job "$@" &
  pids+=($!)
}

echo "== step 2: the tests of $((${#tested[@]} - 1)) modules, the Java 25 pass and ${#consumers[@]} consumer projects," \
  "$jobs_at_once at a time"
for module in "${tested[@]}"; do
  if [ "$module" = java25 ]; then
    # The Java 25 pass (scripts/test-java25.sh: lock-api, the Jedis kit, the starter, the virtual-thread workload and
    # the reactive and Kotlin modules on a JDK 25, with the classes and artifacts of step 1) is a job like the
    # others: it writes its reports apart (target/surefire-reports-java25), so it can run beside the same modules'
    # Java 17 tests. It fails the build if it fails or if no JDK 25 is installed.
    launch java25 bash scripts/test-java25.sh -Dmaven.repo.local="$PWD/target/local-repository" \
      -Dmaven.repo.local.tail="${LOCKSMITH_MAVEN_REPO:-$HOME/.m2/repository}" "$@"
  else
    launch "$module" "${maven[@]}" -pl "$module" surefire:test "$@"
  fi
done
for consumer in "${consumers[@]}"; do
  launch "$consumer" "${maven[@]}" -f "$consumer/pom.xml" verify "$@"
done
wait || true
set +m

took=$((SECONDS - started))
echo "== test-all summary ($jobs_at_once jobs at a time)"
cat "$logs/summary"
passed=$(grep -c ' passed ' "$logs/summary" || true)
if [ "$passed" -ne $((${#tested[@]} + ${#consumers[@]})) ]; then
  echo "== test-all FAILED after $((took / 60)) min $((took % 60)) s: see the FAILED jobs above" >&2
  exit 1
fi
echo "== test-all passed in $((took / 60)) min $((took % 60)) s"
