#!/usr/bin/env bash
# The fuzzing campaign (issue 10 item 7): runs each Jazzer @FuzzTest for real, one at a time.
#
#   bench/fuzz.sh                       every target, 8 minutes each
#   bench/fuzz.sh 30m api:ObjectCodecFuzzTest#yaml
#
# A target is module:TestClass#method. Without JAZZER_FUZZ the same tests only replay their inputs
# (src/test/resources/<package>/<TestClass>Inputs/<method>/) as part of the normal build, in seconds.
# While fuzzing, Jazzer keeps what it learns in <module>/.cifuzz-corpus/<TestClass>/<method>/ (not
# committed) and writes a crashing input as crash-<sha1> into the Inputs directory, where it becomes
# a regression test: fix the cause, keep the file. Copy the few interesting corpus files worth
# keeping into the Inputs directory by hand; keep it small (tens of files, a few KiB each).
# The logs, with libFuzzer's cov:/ft:/exec/s lines, are in target/fuzz/. JAZZER_FUZZ also turns on the
# pom's fuzz profile (-Djazzer.hooks=true): a normal build replays the inputs without instrumentation.
set -euo pipefail
cd "$(dirname "$0")/.."

duration=${1:-8m}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(
    api:ObjectCodecFuzzTest#json
    api:ObjectCodecFuzzTest#yaml
    server:HttpRequestFuzzTest#parse
    server:HttpRequestFuzzTest#rawRequest
    agent:LedgerFuzzTest#snapshot
    agent:LedgerFuzzTest#recovery
    agent:CdiSpecFuzzTest#specFile
    cli:ManifestReaderFuzzTest#read
  )
fi

mkdir -p target/fuzz
for target in "${targets[@]}"; do
  module=${target%%:*}
  test=${target#*:}
  log=target/fuzz/${test//#/-}.log
  echo "== $target for $duration (log: $log)"
  start=$(date +%s)
  status=0
  JAZZER_FUZZ=1 ./mvnw -o -q -pl "$module" -am test -Dtest="$test" -Dsurefire.failIfNoSpecifiedTests=false \
      -Djazzer.max_duration="$duration" >"$log" 2>&1 || status=$?
  echo "   $(( $(date +%s) - start ))s, exit $status"
  # libFuzzer's last status line (execs, cov, ft, corpus, exec/s) and its summary.
  grep -E '^#[0-9]+' "$log" | tail -1 || true
  grep -E 'Done [0-9]+ runs|== Java Exception|FuzzTestFindingException|crash-' "$log" | head -5 || true
done
