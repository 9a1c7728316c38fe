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

# Vitest's reporters for a part: the usual output, and per-file times for the summary.
reporters() {
  echo --reporter=default --reporter=json --outputFile.json="$timings/$1.json"
}

part system-tools sh scripts/ensure-system-tools.sh
part check-and-build sh scripts/check-and-build.sh
if [ "$failed" -ne 0 ]; then
  echo "set-up failed: the tests need the tools and a built package" >&2
  exit 1
fi
started=$SECONDS
# Each part is its npm script (docs/testing.md); the e2e parts run vitest directly, as their scripts build first.
part unit npm run --silent test:unit -- $(reporters unit)
part e2e npx vitest run --config vitest.e2e.config.ts $(reporters e2e)
part e2e-pi-latest env PI_CLI=latest npx vitest run --config vitest.e2e.config.ts $(reporters e2e-pi-latest)
part build npm run --silent test:build -- $(reporters build)
part adversarial npm run --silent test:adversarial -- $(reporters adversarial)
part crash npm run --silent test:crash -- $(reporters crash)
part replay-fuzz npm run --silent test:replay-fuzz -- $(reporters replay-fuzz)

echo
echo "=== summary ($((SECONDS - started)) s of tests after set-up)"
printf '%s\n' "${summary[@]}"
echo "parts: $passed passed, $failed failed"
node scripts/slowest-tests.mjs "$timings" 10
[ "$failed" -eq 0 ]
