#!/usr/bin/env bash
# Runs every test of every module against real servers, installing the servers first if needed; then builds
# every consumer project under examples/consumers/ against the artifacts just installed (they import the BOM,
# which Maven cannot do from inside the reactor that builds it); then runs the Java 25 pass
# (scripts/test-java25.sh: lock-api, the Jedis kit, the starter, the virtual-thread workload and the reactive and
# Kotlin modules on a JDK 25, with the classes and artifacts of the first pass), which fails the build if it fails
# or if no JDK 25 is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-servers.sh
./mvnw -B -ntp install "$@"
for consumer in examples/consumers/*/; do
  if [ -f "${consumer}pom.xml" ]; then
    echo "== consumer project ${consumer}"
    ./mvnw -B -ntp -f "${consumer}pom.xml" verify "$@"
  fi
done
bash scripts/test-java25.sh "$@"
