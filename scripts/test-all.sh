#!/usr/bin/env bash
# Runs every test of every module against real servers, installing the servers first if needed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-servers.sh
./mvnw -B -ntp verify "$@"
