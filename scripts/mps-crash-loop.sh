#!/usr/bin/env bash
# kill -9 of a real agent whose MPS GPU has clients, N times (default 20), checked black-box.
#
# A qm server and one agent (1 simulated GPU, gpu-0 shared by MPS for up to 4 clients). Three
# claims hold shares of 50, 30 and 20 % (the whole GPU's compute); a fourth asking 5 % must wait.
# Each round kills the agent with SIGKILL and starts it again; then the same three claims must be
# prepared on the same shares, the GPU's MPS daemon must be the same process (adopted, never
# restarted under its clients), the shares must sum to at most 100 % and the fourth claim must still
# wait. After the rounds the claims are deleted: the daemon must stop, and gpu-0 be offered whole
# once MPS is turned off.
#
# Usage: scripts/mps-crash-loop.sh [ROUNDS] [PORT] [DIR]   (defaults: 20 7911 /tmp/qm-mps-crash)
set -euo pipefail
rounds=${1:-20}
port=${2:-7911}
dir=${3:-/tmp/qm-mps-crash}
qm="$(cd "$(dirname "$0")/.." && pwd)/qm"
export QM_SERVER=http://127.0.0.1:$port QM_TOKEN_FILE=$dir/server/admin.token
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
server_pid= agent_pid=
cleanup() { [ -n "$agent_pid" ] && kill "$agent_pid" 2>/dev/null; [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; true; }
trap cleanup EXIT

# shellcheck source=scripts/poll.sh
source "$(dirname "$qm")/scripts/poll.sh"
start_agent() {
  "$qm" agent --token-file n1.token --node n1 --state "$dir/agent" --simulated-gpus 1 --rescan 1 \
    >>agent.log 2>&1 &
  agent_pid=$!
}
pidfile=$dir/agent/mps/daemons/gpu-0.pid
claims() { "$qm" get resourceclaims 2>/dev/null | awk '$1 != "NAME" && NF >= 4 {print $1, $2, $4}' | sort; }
offered() { "$qm" get deviceslice n1 -o json 2>/dev/null | grep -o '"name" : "gpu-0[^"]*"' | sed 's/.*: "//; s/"$//' | sort | tr '\n' ' '; }
three_prepared() { [ "$(claims | grep -c ' prepared gpu-0-mps-')" = 3 ]; }
mps_offered() { [ "$(offered)" = "gpu-0-mps " ]; }
whole_offered() { [ "$(offered)" = "gpu-0 " ]; }
claims_as_before() { [ "$(claims)" = "$before" ]; }
no_claims() { [ -z "$(claims)" ]; }
daemon_pid() { cut -d' ' -f1 "$pidfile" 2>/dev/null || true; }
daemon_gone() { [ ! -e "$pidfile" ] && ! kill -0 "$daemon" 2>/dev/null; }
compute_held() { claims | grep -o 'gpu-0-mps-[0-9]*pct' | sed 's/gpu-0-mps-//; s/pct//' | awk '{s += $1} END {print s + 0}'; }
heartbeat() { "$qm" get node n1 -o json 2>/dev/null | grep -o '"heartbeat" : "[^"]*"' || true; }
beat_since() { local now; now=$(heartbeat); [ -n "$now" ] && [ "$now" != "$1" ]; }

"$qm" server --data "$dir/server" --listen 127.0.0.1:$port >server.log 2>&1 &
server_pid=$!
until_true 60 "the server" test -f "$dir/server/admin.token"
until_true 60 "the server to answer" "$qm" get nodes
"$qm" token create --node n1 | tail -1 >n1.token && chmod 600 n1.token
start_agent
until_true 60 "node n1" "$qm" get node n1
"$qm" node share n1 --gpu gpu-0 mps --clients 4
until_true 60 "gpu-0's MPS device offered" mps_offered
cat >job.yaml <<'YAML'
kind: DeviceClass
metadata:
  name: mps
spec:
  class: mps
YAML
for share in "a 50 20Gi" "b 30 10Gi" "c 20 10Gi"; do
  set -- $share
  cat >>job.yaml <<YAML
---
kind: ResourceClaim
metadata:
  name: share-$1
spec:
  requests:
    - name: share
      deviceClassName: mps
      count: 1
      share: {compute: $2, memory: $3}
YAML
done
"$qm" apply -f job.yaml >/dev/null
until_true 90 "three claims prepared on shares" three_prepared
cat >late.yaml <<'YAML'
kind: ResourceClaim
metadata:
  name: late
spec:
  requests:
    - name: share
      deviceClassName: mps
      count: 1
      share: {compute: 5, memory: 1Gi}
YAML
"$qm" apply -f late.yaml >/dev/null
before=$(claims | grep -v '^late ')
daemon=$(daemon_pid)
[ -n "$daemon" ] && kill -0 "$daemon" || { echo "FAIL: no MPS daemon runs for the three shares" >&2; exit 1; }
echo "held: $(echo "$before" | awk '{print $1"="$3}' | tr '\n' ' ')daemon pid $daemon"
for ((r = 1; r <= rounds; r++)); do
  last=$(heartbeat)
  kill -9 "$agent_pid"
  wait "$agent_pid" 2>/dev/null || true
  start_agent
  until_true 60 "round $r: the restarted agent's heartbeat" beat_since "$last"
  until_true 60 "round $r: the restarted agent's second heartbeat" beat_since "$(heartbeat)"
  now=$(claims | grep -v '^late ')
  if [ "$now" != "$before" ]; then
    echo "FAIL: round $r: claims now [$now], not [$before]" >&2; exit 1
  fi
  if [ "$(daemon_pid)" != "$daemon" ] || ! kill -0 "$daemon" 2>/dev/null; then
    echo "FAIL: round $r: the MPS daemon is pid [$(daemon_pid)], not the adopted $daemon" >&2; exit 1
  fi
  if [ "$(compute_held)" -gt 100 ]; then
    echo "FAIL: round $r: the shares take $(compute_held) % of gpu-0" >&2; exit 1
  fi
  if claims | grep -q '^late prepared'; then
    echo "FAIL: round $r: a fourth share was prepared beyond 100 %" >&2; exit 1
  fi
  if "$qm" node share n1 --gpu gpu-0 off >/dev/null 2>&1; then
    echo "FAIL: round $r: MPS turned off while its shares are held" >&2; exit 1
  fi
  echo "round $r: agent killed and restarted; shares kept, daemon $daemon adopted, $(compute_held) % held, the fourth share waits"
done
"$qm" delete -f late.yaml >/dev/null 2>&1 || true
"$qm" delete -f job.yaml >/dev/null 2>&1 || true
until_true 90 "the claims released" no_claims
until_true 60 "the MPS daemon stopped after the last share" daemon_gone
"$qm" node share n1 --gpu gpu-0 off
until_true 60 "gpu-0 offered whole" whole_offered
echo "OK: $rounds kill -9 rounds, the shares held and the daemon adopted throughout, stopped after"
