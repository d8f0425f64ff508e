#!/usr/bin/env bash
# A new user's first command, on every submission: a clean clone of this repository's HEAD, built
# with none of the project's own artifacts in the local Maven repository, starts with `./qm up`;
# examples/training.yaml runs until every task is Running; SIGTERM (as Ctrl-C) stops it. Any step that fails or
# overruns its bound fails this script, with the log of the step.
#
#   .ci/fresh-clone-up.sh              the local repository's third-party artifacts are reused (a
#                                      hard-linked copy without dev/quartermaster): quick, and proves
#                                      the build needs nothing of ours from it
#   QM_FRESH_EMPTY_REPO=1 .ci/...      a wholly empty local repository, as on a new machine
set -euo pipefail

src="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d /tmp/qm-fresh.XXXXXX)"
port="${QM_FRESH_PORT:-7499}"
up_pid=""
start=$SECONDS

say() { echo "fresh-clone-up: $* ($((SECONDS - start))s)"; }
fail() {
  say "FAILED: $*"
  [ -f "$work/run/up.log" ] && { echo "--- last 60 lines of qm up's output:"; tail -n 60 "$work/run/up.log"; }
  [ -f "$work/qm/cli/target/qm-build.log" ] && { echo "--- last 40 lines of the build:"; tail -n 40 "$work/qm/cli/target/qm-build.log"; }
  exit 1
}
cleanup() {
  if [ -n "$up_pid" ] && kill -0 "$up_pid" 2>/dev/null; then kill -9 "$up_pid" 2>/dev/null || true; fi
  pkill -9 -f "$work/" 2>/dev/null || true # the tasks' processes, should a failed run leave any
  rm -rf "$work"
}
trap cleanup EXIT

if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
  fail "port $port is taken; set QM_FRESH_PORT to a free one"
fi

git clone -q "$src" "$work/qm"
mkdir -p "$work/run" "$work/config"
if [ -n "${QM_FRESH_EMPTY_REPO:-}" ]; then
  mkdir -p "$work/m2"
  say "local Maven repository: empty ($work/m2)"
else
  cp -al "${HOME}/.m2/repository" "$work/m2" 2>/dev/null || mkdir -p "$work/m2"
  rm -rf "$work/m2/dev/quartermaster"
  say "local Maven repository: a copy of ~/.m2/repository without dev/quartermaster"
fi
export MAVEN_ARGS="-Dmaven.repo.local=$work/m2"
export XDG_CONFIG_HOME="$work/config"   # the client config qm up writes; the user's stays as it is
qm="$work/qm/qm"

say "starting ./qm up in a clean clone (it builds first)"
(cd "$work/run" && exec "$qm" up --listen "127.0.0.1:$port") >"$work/run/up.log" 2>&1 &
up_pid=$!

for _ in $(seq 1 900); do # the build from nothing, then the start: 15 minutes at most
  kill -0 "$up_pid" 2>/dev/null || fail "qm up exited before it was healthy"
  if curl -fsS -o /dev/null "http://127.0.0.1:$port/healthz" 2>/dev/null; then break; fi
  sleep 1
done
curl -fsS -o /dev/null "http://127.0.0.1:$port/healthz" || fail "qm up not healthy within 15 minutes"
say "qm up is healthy on 127.0.0.1:$port"
# The API answers before the agents are up and the client config is written: a user runs the next
# command once qm up says what to run next, and so does this script.
for _ in $(seq 1 120); do
  grep -q 'Stop with Ctrl-C' "$work/run/up.log" && break
  kill -0 "$up_pid" 2>/dev/null || fail "qm up exited before it was ready"
  sleep 1
done
grep -q 'Stop with Ctrl-C' "$work/run/up.log" || fail "qm up did not say it was ready within 2 minutes of being healthy"
say "qm up is ready (agents up, client config written)"

(cd "$work/run" && "$qm" apply -f "$work/qm/examples/training.yaml") || fail "qm apply -f examples/training.yaml"
want=5 # training.yaml: a head and four workers
for _ in $(seq 1 180); do
  running="$(cd "$work/run" && "$qm" get tasks 2>/dev/null | awk 'NR > 1 && $2 == "Running"' | wc -l)"
  [ "$running" -ge "$want" ] && break
  sleep 1
done
(cd "$work/run" && "$qm" get tasks) || true
[ "$running" -ge "$want" ] || fail "$running of $want tasks Running after 3 minutes"
say "every task of examples/training.yaml is Running"

kill -TERM "$up_pid" # what Ctrl-C does; a background job of a script ignores SIGINT
for _ in $(seq 1 60); do kill -0 "$up_pid" 2>/dev/null || break; sleep 1; done
if kill -0 "$up_pid" 2>/dev/null; then fail "qm up still running 60 s after SIGTERM"; fi
wait "$up_pid" || true
up_pid=""
say "qm up stopped on SIGTERM; passed"
