#!/usr/bin/env bash
# The Java 25 pass (issue 28, item 5): runs, on a JDK 25, the tests of lock-api and the Spring Boot starter, the
# Jedis single-node kit of backend-redis (JedisLockTckTest), the virtual-thread workload
# (integration-tests VirtualThreadsWorkloadTest, which skips itself on Java 17), and every test of locksmith-reactor
# and locksmith-kotlin when those modules are in the build. The code is compiled once, for Java 17, by the first pass
# (scripts/test-all.sh runs "./mvnw install" in its step 1, then this script as one of its step 2 jobs): this pass
# only runs surefire:test on the classes that pass compiled, against the artifacts it installed, so it compiles
# nothing and downloads only what surefire needs.
# Fails if a test fails, if a JDK 25 is missing, or if a test report shows another Java than 25.
#
# Alone, after an install of the same commit: bash scripts/test-java25.sh [maven options]
# LOCKSMITH_JAVA25_HOME names another JDK 25 than /usr/lib/jvm/temurin-25-jdk-amd64.
set -euo pipefail
cd "$(dirname "$0")/.."

java25_home="${LOCKSMITH_JAVA25_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
if [ ! -x "${java25_home}/bin/java" ]; then
  cat >&2 <<EOF
test-java25: no JDK 25 at ${java25_home}: the Java 25 pass cannot run, so the build fails.
  Debian 12 (bookworm) packages no JDK newer than openjdk-17, and Maven Central serves no JDK. Install Temurin 25
  from Adoptium's apt repository ("apt-get install temurin-25-jdk" once packages.adoptium.net is a source), or
  unpack any JDK 25 and point LOCKSMITH_JAVA25_HOME at it.
EOF
  exit 1
fi
spec_version=$("${java25_home}/bin/java" -XshowSettings:properties -version 2>&1 \
  | sed -n 's/^ *java\.specification\.version = //p')
if [ "${spec_version}" != "25" ]; then
  echo "test-java25: ${java25_home} is Java ${spec_version:-unknown}, not 25 (set LOCKSMITH_JAVA25_HOME)" >&2
  exit 1
fi

# Every test of these modules...
whole_modules=(lock-api locksmith-spring-boot-starter)
# ...and one class of each of these, each in its own invocation, so that a failure in one does not skip the other
# (integration-tests depends on backend-redis: Maven would skip it after a failure there).
some_modules=(backend-redis integration-tests)
some_tests=(JedisLockTckTest VirtualThreadsWorkloadTest)
# The reactive and coroutine modules (issue 28, item 3) join as soon as the build lists them.
for module in locksmith-reactor locksmith-kotlin; do
  if [ -f "${module}/pom.xml" ] && grep -q "<module>${module}</module>" pom.xml; then
    whole_modules+=("${module}")
  else
    echo "test-java25: ${module} is not in the build yet: not run"
  fi
done

# This pass's reports go to target/surefire-reports-java25 (the pom's locksmith.test.reports), so that it can run
# while the Java 17 pass tests the same modules (scripts/test-all.sh runs it as one of its jobs), and so that every
# report read below is this pass's own.
reports_dir=surefire-reports-java25
for module in "${whole_modules[@]}" "${some_modules[@]}"; do
  rm -rf "${module}/target/${reports_dir}"
done

start=$(date +%s)
echo "== Java 25 pass on ${java25_home} ($("${java25_home}/bin/java" -version 2>&1 | head -1))"
export JAVA_HOME="${java25_home}"
status=0
./mvnw -B -ntp -fae -pl "$(IFS=,; echo "${whole_modules[*]}")" surefire:test -Dlocksmith.test.reports="${reports_dir}" \
  "$@" || status=1
for i in "${!some_modules[@]}"; do
  ./mvnw -B -ntp -pl "${some_modules[$i]}" surefire:test -Dtest="${some_tests[$i]}" \
    -Dlocksmith.test.reports="${reports_dir}" "$@" || status=1
done

# Which Java the forked test JVMs ran on, from the reports they wrote: every one must say 25.
for module in "${whole_modules[@]}" "${some_modules[@]}"; do
  reports=("${module}"/target/${reports_dir}/TEST-*.xml)
  if [ ! -e "${reports[0]}" ]; then
    echo "test-java25: ${module}: no test report: the Java 25 pass ran none of its tests" >&2
    status=1
    continue
  fi
  versions=$(sed -n 's/.*<property name="java\.version" value="\([^"]*\)".*/\1/p' "${reports[@]}" | sort -u | tr '\n' ' ')
  # Test cases, not the suites' totals: a kit's nested classes report their cases under the outer class's suite.
  tests=$(cat "${reports[@]}" | grep -c '<testcase ' || true)
  skipped=$(cat "${reports[@]}" | grep -c '<skipped' || true)
  echo "test-java25: ${module}: ${#reports[@]} test classes, ${tests} tests (${skipped} skipped), java.version ${versions}"
  if [ "${tests}" -eq 0 ]; then
    echo "test-java25: ${module}: its reports hold no test case" >&2
    status=1
  fi
  for version in ${versions}; do
    case "${version}" in
      25|25.*) ;;
      *) echo "test-java25: ${module}: a report says java.version ${version}, not 25" >&2; status=1 ;;
    esac
  done
done
echo "test-java25: the Java 25 pass took $(( $(date +%s) - start )) s"
if [ "${status}" -ne 0 ]; then
  echo "test-java25: the Java 25 pass FAILED (see the surefire output above)" >&2
fi
exit "${status}"
