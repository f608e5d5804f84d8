#!/usr/bin/env bash
# Runs the portable integration suites against every server scripts/fetch-servers.sh
# provides, MATRIX_JOBS servers at a time: a verdict line per server as it finishes, then a
# summary table in the matrix's order. A server that fails (or hangs until the time limit)
# does not stop the others; each server's full test output is kept in target/matrix/<name>.log.
#
# Usage: scripts/test-matrix.sh [NAME…]        (no NAME: the default matrix)
# Environment:
#   MATRIX_SUITES    cargo test selection (the Makefile passes PORTABLE_SUITES)
#   MATRIX_REQUIRED  servers that must pass: the exit status is non-zero if one of them
#                    fails; the others are reported only. Unset: every server run must pass.
#   MATRIX_TIMEOUT   seconds allowed per server (default 900)
#   MATRIX_JOBS      servers tested at once (default 1). The suites mostly wait on their
#                    servers, so 2 take about half the time; but the hostile-input suite times
#                    each command against a bound, which a second server's heavy tests (or a
#                    build) beside it can break, so CI keeps to one.
# The module and the test binaries are built once, before the first server; each server then
# runs the test binaries themselves, one after another (no cargo, whose lock on the build
# directory would make the servers take turns).
set -uo pipefail
cd "$(dirname "$0")/.."

suites=${MATRIX_SUITES:?set MATRIX_SUITES (make test-matrix sets it from PORTABLE_SUITES)}
limit=${MATRIX_TIMEOUT:-900}
parallel=${MATRIX_JOBS:-1}
logs=target/matrix
mkdir -p "$logs"

# shellcheck disable=SC2086
built=$(cargo build --release --quiet && cargo test --release --no-run $suites 2>&1) ||
  { echo "$built" >&2; echo "matrix: the build failed" >&2; exit 2; }
# cargo names each test binary it built: "Executable tests/x.rs (target/release/deps/x-…)".
mapfile -t binaries < <(sed -n 's/^ *Executable .*(\(.*\))$/\1/p' <<<"$built")
((${#binaries[@]})) || { echo "matrix: cargo named no test binary" >&2; exit 2; }

servers=$(scripts/fetch-servers.sh "$@") || echo "matrix: some servers could not be fetched (see above)" >&2
[[ -n $servers ]] || { echo "matrix: no server to test" >&2; exit 2; }

required=" ${MATRIX_REQUIRED-__all__} "
# Whether server $1 must pass.
must_pass() { [[ $required == " __all__ " || $required == *" $1 "* ]]; }

# Every test binary on server `name` (`launcher`): the log, then one result line in
# $logs/<name>.result, also printed as the verdict.
test_server() {
  local name=$1 launcher=$2 version started code=0 seconds passed failed verdict line
  version=$("$launcher" --version 2>/dev/null | grep -oE 'v=[0-9.]+' | head -n1)
  version=${version#v=}
  started=$(date +%s)
  : >"$logs/$name.log"
  for binary in "${binaries[@]}"; do
    local left=$((limit - ($(date +%s) - started)))
    if ((left <= 0)); then code=124; break; fi
    echo "     Running $binary" >>"$logs/$name.log"
    BF_TEST_SERVER=$launcher timeout --kill-after=30 "$left" "$binary" >>"$logs/$name.log" 2>&1
    local status=$?
    if ((status == 124 || status == 137)); then code=124; break; fi
    ((status == 0)) || code=1
  done
  seconds=$(($(date +%s) - started))
  # Each test binary prints one "test result:" line.
  read -r passed failed < <(awk '/^test result:/ {
      for (i = 1; i < NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
      END { print p + 0, f + 0 }' "$logs/$name.log")
  if ((code == 0)); then
    verdict=PASS
  elif ((code == 124)); then
    verdict=TIMEOUT
  else
    verdict=FAIL
  fi
  # A suite binary that crashed or never ran shows as a failure even with no failed test.
  if [[ $verdict != PASS ]] && ((failed == 0)); then failed=1; fi
  line=$(printf '%-7s %-20s %-8s %4d passed %3d failed %5ds' "$verdict" "$name" "${version:-?}" "$passed" "$failed" "$seconds")
  must_pass "$name" || line+="  (report only)"
  echo "$line" >"$logs/$name.result"
  echo "matrix: $line"
  # CI keeps only the output, not target/: a failure names its tests and their panics here.
  if [[ $verdict != PASS ]]; then
    grep -E -A12 '^test .* FAILED$|panicked at' "$logs/$name.log" | head -n 80 | sed "s/^/matrix: $name: /"
  fi
}

names=()
while read -r name launcher; do
  names+=("$name")
  rm -f "$logs/$name.result"
  while (($(jobs -rp | wc -l) >= parallel)); do wait -n; done
  test_server "$name" "$launcher" &
done <<<"$servers"
wait

results=()
failed_required=()
# A required server that could not be fetched fails the run too.
for name in ${MATRIX_REQUIRED-}; do
  if ! grep -q "^$name " <<<"$servers"; then
    results+=("$(printf '%-7s %-20s' MISSING "$name")")
    failed_required+=("$name")
  fi
done
for name in "${names[@]}"; do
  line=$(cat "$logs/$name.result" 2>/dev/null) || line=$(printf '%-7s %-20s' FAIL "$name")
  results+=("$line")
  if [[ $line != PASS* ]] && must_pass "$name"; then failed_required+=("$name"); fi
done

echo
echo "== version matrix: ${#names[@]} servers, $parallel at a time; logs in $logs/"
printf '%s\n' "${results[@]}"
passed_servers=$(printf '%s\n' "${results[@]}" | grep -c '^PASS')
failed_servers=$((${#results[@]} - passed_servers))
echo "matrix: $passed_servers of ${#results[@]} servers passed, $failed_servers failed"
if ((${#failed_required[@]})); then
  echo "matrix: required servers failed: ${failed_required[*]}"
  exit 1
fi
