#!/usr/bin/env bash
# Runs the portable integration suites against every server scripts/fetch-servers.sh
# provides, one server after another: a verdict line per server as it finishes, then a
# summary table. A server that fails (or hangs until the time limit) does not stop the
# later ones; each server's full cargo output is kept in target/matrix/<name>.log.
#
# Usage: scripts/test-matrix.sh [NAME…]        (no NAME: the default matrix)
# Environment:
#   MATRIX_SUITES    cargo test selection (the Makefile passes PORTABLE_SUITES)
#   MATRIX_REQUIRED  servers that must pass: the exit status is non-zero if one of them
#                    fails; the others are reported only. Unset: every server run must pass.
#   MATRIX_TIMEOUT   seconds allowed per server (default 900)
# The module and the test binaries are built once, before the first server.
set -uo pipefail
cd "$(dirname "$0")/.."

suites=${MATRIX_SUITES:?set MATRIX_SUITES (make test-matrix sets it from PORTABLE_SUITES)}
limit=${MATRIX_TIMEOUT:-900}
logs=target/matrix
mkdir -p "$logs"

# shellcheck disable=SC2086
cargo build --release --quiet && cargo test --release --quiet --no-run $suites ||
  { echo "matrix: the build failed" >&2; exit 2; }

servers=$(scripts/fetch-servers.sh "$@") || echo "matrix: some servers could not be fetched (see above)" >&2
[[ -n $servers ]] || { echo "matrix: no server to test" >&2; exit 2; }

results=()
failed_required=()
required=" ${MATRIX_REQUIRED-__all__} "
# A required server that could not be fetched fails the run too.
for name in ${MATRIX_REQUIRED-}; do
  if ! grep -q "^$name " <<<"$servers"; then
    results+=("$(printf '%-7s %-20s' MISSING "$name")")
    failed_required+=("$name")
  fi
done
while read -r name launcher; do
  version=$("$launcher" --version 2>/dev/null | grep -oE 'v=[0-9.]+' | head -n1)
  version=${version#v=}
  started=$(date +%s)
  # shellcheck disable=SC2086
  BF_TEST_SERVER=$launcher timeout --kill-after=30 "$limit" \
    cargo test --release --no-fail-fast $suites >"$logs/$name.log" 2>&1
  code=$?
  seconds=$(($(date +%s) - started))
  # cargo prints one "test result:" line per test binary.
  read -r passed failed < <(awk '/^test result:/ {
      for (i = 1; i < NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
      END { print p + 0, f + 0 }' "$logs/$name.log")
  if ((code == 0)); then
    verdict=PASS
  elif ((code == 124 || code == 137)); then
    verdict=TIMEOUT
  else
    verdict=FAIL
  fi
  # A suite binary that crashed or never ran shows as a failure even with no failed test.
  if [[ $verdict != PASS ]] && ((failed == 0)); then failed=1; fi
  must=no
  if [[ $required == " __all__ " || $required == *" $name "* ]]; then must=yes; fi
  line=$(printf '%-7s %-20s %-8s %4d passed %3d failed %5ds' "$verdict" "$name" "${version:-?}" "$passed" "$failed" "$seconds")
  [[ $must == yes ]] || line+="  (report only)"
  echo "matrix: $line"
  results+=("$line")
  if [[ $verdict != PASS && $must == yes ]]; then failed_required+=("$name"); fi
done <<<"$servers"

echo
echo "== version matrix: $(wc -l <<<"$servers") servers; logs in $logs/"
printf '%s\n' "${results[@]}"
passed_servers=$(printf '%s\n' "${results[@]}" | grep -c '^PASS')
failed_servers=$((${#results[@]} - passed_servers))
echo "matrix: $passed_servers of ${#results[@]} servers passed, $failed_servers failed"
if ((${#failed_required[@]})); then
  echo "matrix: required servers failed: ${failed_required[*]}"
  exit 1
fi
