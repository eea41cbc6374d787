#!/usr/bin/env bash
# Installs what the tests run as real processes, from the Debian package that provides each missing binary:
#   redis-server  (package redis-server; Sentinel runs as "redis-server --sentinel", so the separate
#                  redis-sentinel package is not needed)
#   etcd          (package etcd-server)
#   iptables      (package iptables; the fault kit's LoopbackFirewall partitions loopback ports with it)
#   initdb, postgres (package postgresql; run as the postgres user when the build is root)
#   memcached     (package memcached; the store of the worked example examples/memcached-provider)
# ZooKeeper needs nothing: the tests run it from its Maven artifact.
# Does nothing, needing neither root nor the network, when every binary is there.
set -euo pipefail

missing=()
have() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || [ -x "/usr/bin/$1" ]; }
have redis-server || missing+=(redis-server)
have etcd || missing+=(etcd-server)
have iptables || missing+=(iptables)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1 || missing+=(postgresql)
have memcached || missing+=(memcached)

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-servers: redis-server, etcd, iptables, postgresql and memcached are installed"
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
$sudo_cmd service memcached stop >/dev/null 2>&1 || true
echo "install-servers: done"
