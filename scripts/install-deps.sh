#!/usr/bin/env bash
# Installs what a make target needs from the system, where it is missing, so that `make run` and
# `make test` are the only commands a fresh machine needs (with Rust installed):
#   build  libclang (the Redis module bindings are generated with bindgen) and a C compiler
#   run    build's, and redis-server
#   test   run's, and redis-cli, a C++ compiler (libFuzzer), Node.js with npm (node-redis),
#          python3 with pip (redis-py, and the wheels of RedisBloom and Valkey)
# On Debian and Ubuntu the missing packages are installed with apt-get (through sudo when not
# root), and the redis-server service the package starts is stopped: the tests and `make run`
# start their own servers. Elsewhere the script names the missing packages in one line and fails.
#
# Usage: scripts/install-deps.sh build|run|test
set -euo pipefail

profile=${1:?usage: scripts/install-deps.sh build|run|test}
case $profile in build | run | test) ;; *)
  echo "install-deps: unknown profile $profile (build, run or test)" >&2
  exit 2
  ;;
esac

missing=()
# need PACKAGE CHECK…: PACKAGE (Debian's name) is missing unless the command CHECK… succeeds.
need() {
  local package=$1
  shift
  "$@" >/dev/null 2>&1 || missing+=("$package")
}
has() { command -v "$1"; }
libclang() { ldconfig -p | grep -q 'libclang[-.0-9]*\.so' || dpkg -s libclang-dev; }

need libclang-dev libclang
need gcc has cc
if [[ $profile != build ]]; then
  need redis-server has redis-server
fi
if [[ $profile == test ]]; then
  need redis-tools has redis-cli
  need g++ has c++
  need nodejs has node
  need npm has npm
  need python3-pip python3 -m pip --version
fi
((${#missing[@]})) || exit 0

# shellcheck disable=SC1091
distribution=$( (. /etc/os-release 2>/dev/null && echo "$ID $ID_LIKE") || true)
if [[ " $distribution " != *" debian "* && " $distribution " != *" ubuntu "* ]]; then
  echo "install-deps: install these packages (Debian's names), then run make again: ${missing[*]}" >&2
  exit 1
fi
sudo=()
((EUID == 0)) || sudo=(sudo)
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
# The package starts a server on port 6379, where `make run` starts its own.
if [[ " ${missing[*]} " == *" redis-server "* ]]; then
  "${sudo[@]}" service redis-server stop >/dev/null 2>&1 || true
  "${sudo[@]}" systemctl disable redis-server >/dev/null 2>&1 || true
fi
