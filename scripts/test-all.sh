#!/usr/bin/env bash
# `npm test`: every test we have, in parts. Each part runs even when an earlier
# one failed, so one CI printout shows every failure; the summary at the end
# gives each part's time and outcome, the slowest test files, and a closing
# "tests: N passed, N failed" line. Exits non-zero when any part failed.
#
# Parts (docs/testing.md): unit, e2e on Pi 0.87.1, e2e on Pi 1.x (the
# Pi-dependent files), checks of the built package, the hostile wfcli
# reproductions, the crash suite and the replay fuzzer at its full seed count.
set -uo pipefail
cd "$(dirname "$0")/.."

timings="node_modules/.cache/test-timings"
rm -rf "$timings"
mkdir -p "$timings"
summary=()
passed=0
failed=0

# part NAME COMMAND...: runs one part, times it and records its outcome.
part() {
  local name=$1
  shift
  echo
  echo "=== $name: $*"
  local started=$SECONDS
  "$@"
  local code=$?
  local took=$((SECONDS - started))
  if [ "$code" -eq 0 ]; then
    passed=$((passed + 1))
    summary+=("ok     $(printf '%5d' "$took") s  $name")
  else
    failed=$((failed + 1))
    summary+=("FAILED $(printf '%5d' "$took") s  $name (exit $code)")
  fi
}

# vitest_part NAME CONFIG [ENV=VALUE...]: one vitest run that also writes its per-file times for the summary.
vitest_part() {
  local name=$1 config=$2
  shift 2
  part "$name" env "$@" npx vitest run --config "$config" --reporter=default --reporter=json --outputFile.json="$timings/$name.json"
}

part system-tools sh scripts/ensure-system-tools.sh
part check-and-build sh scripts/check-and-build.sh
if [ "$failed" -ne 0 ]; then
  echo "set-up failed: the tests need the tools and a built package" >&2
  exit 1
fi
started=$SECONDS
vitest_part unit vitest.config.ts
vitest_part e2e vitest.e2e.config.ts
vitest_part e2e-pi-latest vitest.e2e.config.ts PI_CLI=latest
vitest_part build test/build/vitest.config.ts
vitest_part adversarial test/adversarial/vitest.cli.config.ts
vitest_part crash test/crash/vitest.config.ts
vitest_part replay-fuzz test/adversarial/vitest.fuzz.config.ts REPLAY_FUZZ_SEEDS="${REPLAY_FUZZ_SEEDS:-200}"

echo
echo "=== summary ($((SECONDS - started)) s of tests after set-up)"
printf '%s\n' "${summary[@]}"
echo "parts: $passed passed, $failed failed"
node scripts/slowest-tests.mjs "$timings" 10
[ "$failed" -eq 0 ]
