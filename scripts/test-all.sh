#!/usr/bin/env bash
# Runs every test of every module against real servers, installing the servers first if needed; then builds
# every consumer project under examples/consumers/ against the artifacts just installed (they import the BOM,
# which Maven cannot do from inside the reactor that builds it).
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
