#!/usr/bin/env bash
# kill -9 of a real agent whose time-sliced GPU has clients, N times (default 20), checked black-box.
#
# A qm server and one agent (1 simulated GPU, gpu-0 time-sliced by 3). Three claims hold the three
# replicas. Each round kills the agent with SIGKILL and starts it again; then the same three
# claims must be prepared on the same three replicas, the node's slice must offer the replicas and
# never gpu-0 whole, and turning time-slicing off must still be refused (the replicas are held).
# After the rounds the claims are deleted, time-slicing turned off, and gpu-0 must be offered whole.
#
# Usage: scripts/timeslice-crash-loop.sh [ROUNDS] [PORT] [DIR]   (defaults: 20 7910 /tmp/qm-ts-crash)
set -euo pipefail
rounds=${1:-20}
port=${2:-7910}
dir=${3:-/tmp/qm-ts-crash}
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
claims() { "$qm" get resourceclaims 2>/dev/null | awk '$1 != "NAME" && NF >= 4 {print $1, $2, $4}' | sort; }
offered() { "$qm" get deviceslice n1 -o json 2>/dev/null | grep -o '"name" : "gpu-0[^"]*"' | sed 's/.*: "//; s/"$//' | sort | tr '\n' ' '; }
three_prepared() { [ "$(claims | grep -c ' prepared gpu-0-ts-')" = 3 ]; }
# Functions, not "test $(...)": until_true's arguments are expanded once, at its call.
replicas_offered() { [ "$(offered)" = "gpu-0-ts-0 gpu-0-ts-1 gpu-0-ts-2 " ]; }
whole_offered() { [ "$(offered)" = "gpu-0 " ]; }
claims_as_before() { [ "$(claims)" = "$before" ]; }
no_claims() { [ -z "$(claims)" ]; }
heartbeat() { "$qm" get node n1 -o json 2>/dev/null | grep -o '"heartbeat" : "[^"]*"' || true; }
beat_since() { local now; now=$(heartbeat); [ -n "$now" ] && [ "$now" != "$1" ]; }

"$qm" server --data "$dir/server" --listen 127.0.0.1:$port >server.log 2>&1 &
server_pid=$!
until_true 60 "the server" test -f "$dir/server/admin.token"
until_true 60 "the server to answer" "$qm" get nodes
"$qm" token create --node n1 | tail -1 >n1.token && chmod 600 n1.token
start_agent
until_true 60 "node n1" "$qm" get node n1
"$qm" node share n1 --gpu gpu-0 time-sliced --replicas 3
until_true 60 "gpu-0's replicas offered" replicas_offered
cat >job.yaml <<'YAML'
kind: DeviceClass
metadata:
  name: timeslice
spec:
  class: timeslice
YAML
for n in 0 1 2; do
  cat >>job.yaml <<YAML
---
kind: ResourceClaim
metadata:
  name: turn-$n
spec:
  requests:
    - name: turn
      deviceClassName: timeslice
      count: 1
YAML
done
"$qm" apply -f job.yaml >/dev/null
until_true 90 "three claims prepared on replicas" three_prepared
before=$(claims)
echo "held: $(echo "$before" | awk '{print $1"="$3}' | tr '\n' ' ')"
for ((r = 1; r <= rounds; r++)); do
  last=$(heartbeat)
  kill -9 "$agent_pid"
  wait "$agent_pid" 2>/dev/null || true
  start_agent
  # The new agent's first heartbeat comes after its start-up publish of the slice.
  until_true 60 "round $r: the restarted agent's heartbeat" beat_since "$last"
  until_true 60 "round $r: the restarted agent's second heartbeat" beat_since "$(heartbeat)"
  until_true 60 "round $r: the same claims prepared on the same replicas" claims_as_before
  # The restarted agent rewrote each held claim's CDI spec (a replica it could not find: a warning).
  if grep -q "are not all found now" agent.log; then
    echo "FAIL: round $r: the agent could not find a held replica: $(grep -m1 'not all found' agent.log)" >&2; exit 1
  fi
  specs=$(ls "$dir/agent/cdi" | grep -c '^quartermaster.dev-gpu_.*\.json$' || true)
  if [ "$specs" != 3 ]; then
    echo "FAIL: round $r: $specs CDI specs for the three held claims" >&2; exit 1
  fi
  now=$(offered)
  if [ "$now" != "gpu-0-ts-0 gpu-0-ts-1 gpu-0-ts-2 " ]; then
    echo "FAIL: round $r: the slice offers [$now], not the three replicas" >&2; exit 1
  fi
  if "$qm" node share n1 --gpu gpu-0 off >/dev/null 2>&1; then
    echo "FAIL: round $r: time-slicing turned off while its replicas are held" >&2; exit 1
  fi
  echo "round $r: agent killed and restarted; claims and replicas kept; the mode change refused"
done
"$qm" delete -f job.yaml >/dev/null 2>&1 || true
until_true 90 "the job's claims released" no_claims
"$qm" node share n1 --gpu gpu-0 off
until_true 60 "gpu-0 offered whole" whole_offered
echo "OK: $rounds kill -9 rounds, the three replicas held throughout, gpu-0 whole again after"
