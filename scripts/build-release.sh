#!/usr/bin/env bash
# Builds the release artefact target/dist/libredis_bf.so for glibc 2.31 (Debian 11; Ubuntu
# 22.04 has 2.35), so it loads on every distribution the tested servers come from. A plain
# `cargo build` on Debian 12 links against glibc 2.36 and needs GLIBC_2.34 symbols.
#
# The cross-linker is zig (PyPI `ziglang`) driven by `cargo-zigbuild` (PyPI), installed into
# a cache outside the repository, not system-wide. The artefact is checked: no symbol newer
# than GLIBC_2.31, and with `--check`, loaded into Redis 6.0 running on Debian 11's own glibc
# (scripts/fetch-servers.sh redis-6.0-glibc2.31), BF.RESERVE answered.
set -euo pipefail
cd "$(dirname "$0")/.."

glibc=2.31
tools=${REDIS_BF_ZIG:-$HOME/.cache/redis-bf-zig}
if [[ ! -x $tools/bin/cargo-zigbuild ]]; then
  python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
    --target "$tools" "ziglang==0.13.0" "cargo-zigbuild==0.24.0" >&2
fi
# cargo-zigbuild finds zig through `python3 -m ziglang`.
PYTHONPATH=$tools${PYTHONPATH:+:$PYTHONPATH} PATH=$tools/bin:$PATH \
  cargo-zigbuild zigbuild --release --target "x86_64-unknown-linux-gnu.$glibc"

built=target/x86_64-unknown-linux-gnu/release/libredis_bf.so
newest=$(objdump -T "$built" | grep -oE 'GLIBC_[0-9.]+' | sort -uV | tail -n1)
if [[ $(printf '%s\n' "${newest#GLIBC_}" "$glibc" | sort -V | tail -n1) != "$glibc" ]]; then
  echo "release: $built needs $newest, newer than glibc $glibc" >&2
  exit 1
fi
mkdir -p target/dist
cp "$built" target/dist/libredis_bf.so
echo "release: target/dist/libredis_bf.so (newest glibc symbol: $newest)"

if [[ ${1:-} == --check ]]; then
  server=$(scripts/fetch-servers.sh redis-6.0-glibc2.31 | cut -d' ' -f2)
  dir=$(mktemp -d)
  trap 'kill "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "$server" --port "$port" --bind 127.0.0.1 --dir "$dir" --save "" --logfile server.log \
    --loadmodule "$PWD/target/dist/libredis_bf.so" &
  pid=$!
  for _ in $(seq 50); do
    reply=$(redis-cli -p "$port" BF.RESERVE release-check 0.01 100 2>/dev/null) && break
    sleep 0.1
  done
  if [[ ${reply:-} != OK ]]; then
    echo "release: the artefact did not answer on Redis 6.0 with glibc $glibc:" >&2
    tail -n 5 "$dir/server.log" >&2
    exit 1
  fi
  echo "release: loads and answers on $("$server" --version | cut -d' ' -f1-3) with glibc $glibc"
fi
