#!/usr/bin/env bash
# Tests .ci/gtest-shards against shard_probe (a googletest binary whose tests pass, skip,
# fail, crash or hang on request): the exit code and the lines a CI log needs for each
# outcome. Usage: gtest_shards_test.sh RUNNER PROBE_BINARY
set -uo pipefail
runner=$1 probe=$2
failures=0
out=""
run() {  # MODE [ENV...] -- ARGS: runs the runner; sets $out and $rc
  local mode=$1
  shift
  out=$(env SWZ_PROBE_MODE="$mode" SWZ_SHARDS=3 "$@" 2>&1)
  rc=$?
}
expect() {  # CASE WANT_RC TEXT...: the last run's exit code and that each TEXT is in its output
  local name=$1 want=$2
  shift 2
  if [ "$rc" != "$want" ]; then
    echo "FAIL $name: exit $rc, want $want"; echo "$out" | tail -20; failures=$((failures + 1)); return
  fi
  for t in "$@"; do
    if ! grep -qF -- "$t" <<< "$out"; then
      echo "FAIL $name: no '$t' in:"; echo "$out" | tail -20; failures=$((failures + 1)); return
    fi
  done
  echo "ok   $name"
}
run pass "$runner" "$probe"
expect all-pass 0 "8 passed, 1 skipped, 0 failed of 9 selected tests (3 shards, 0 failed)"
run fail "$runner" "$probe"
expect a-failure 1 "gtest-shards: FAILED Probe.FailsWhenAsked; run again alone:" "planted failure" \
  "7 passed, 1 skipped, 1 failed of 9 selected tests"
run param "$runner" "$probe"
expect a-parameterised-failure 1 "gtest-shards: FAILED Values/ProbeParam.FailsForTwoWhenAsked/1; run again alone:"
run crash "$runner" "$probe"
expect a-crash 1 "before its summary, in Probe.CrashesWhenAsked"
run hang SWZ_SHARD_TIMEOUT=2 "$runner" "$probe"
expect a-hang 1 "was killed after 2 s before its summary, in Probe.HangsWhenAsked"
run pass "$runner" "$probe" "-Probe.*"
expect a-filter 0 "3 passed, 0 skipped, 0 failed of 3 selected tests"
run pass "$runner" "$probe" "Nothing.*"
expect a-filter-selecting-nothing 1 "swizzleperf: error: the filter 'Nothing.*' selects no test"
run pass "$runner" /nonexistent/probe
expect a-missing-binary 2 "swizzleperf: error: /nonexistent/probe is not an executable test binary"
run pass "$runner"
expect no-arguments 2 "swizzleperf: error: usage: .ci/gtest-shards BINARY [GTEST_FILTER]"
[ "$failures" -eq 0 ] || { echo "$failures case(s) failed"; exit 1; }
