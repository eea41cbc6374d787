#!/usr/bin/env bash
# Installs the real servers the backend tests start: redis-server/redis-sentinel and etcd (Debian
# packages). ZooKeeper needs nothing: the tests run it in-JVM from its Maven artifact.
# Does nothing when they are already there. Needs root (or sudo) for apt-get.
set -euo pipefail

missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v redis-sentinel >/dev/null 2>&1 || missing+=(redis-server)
command -v etcd >/dev/null 2>&1 || [ -x /usr/bin/etcd ] || missing+=(etcd-server)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1 || missing+=(postgresql)

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-servers: redis-server, redis-sentinel and etcd are installed"
  exit 0
fi

packages=$(printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' ')
sudo_cmd=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo_cmd="sudo"; else
    echo "install-servers: need root to install: $packages (apt-get install -y $packages)" >&2; exit 1
  fi
fi
echo "install-servers: installing $packages"
$sudo_cmd apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends $packages >/dev/null
# The Debian packages start system services on the default ports; the tests use their own ports, so
# stop them if they run (no systemd in containers: ignore failures).
$sudo_cmd service redis-server stop >/dev/null 2>&1 || true
$sudo_cmd service etcd stop >/dev/null 2>&1 || true
$sudo_cmd service postgresql stop >/dev/null 2>&1 || true
echo "install-servers: done"
