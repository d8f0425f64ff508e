#!/usr/bin/env bash
# kill -9 of a real agent between "MIG instance created" and "prepare recorded", N times (default 50),
# counted black-box from the simulated device tree's driver state (<root>/sim/mig).
#
# A qm server and one agent (1 simulated H200, gpu-0 in MIG Dynamic mode, QM_CRASH_AT=mig-created:
# the agent halts right after each instance it creates). Each round applies a 1g.18gb slice claim;
# the agent halts; on odd rounds the claim is deleted while the agent is dead (its instance is then
# a leak the restart must destroy); the agent restarts; once every claim is prepared and no deleted
# one is left, the instances must be exactly one per prepared claim, each at its claim's slice.
# The oldest claim is deleted (a live unprepare) when three are held.
#
# Usage: scripts/mig-crash-loop.sh [ROUNDS] [PORT] [DIR]     (defaults: 50 7900 /tmp/qm-mig-crash)
set -euo pipefail
rounds=${1:-50}
port=${2:-7900}
dir=${3:-/tmp/qm-mig-crash}
qm="$(cd "$(dirname "$0")/.." && pwd)/qm"
export QM_SERVER=http://127.0.0.1:$port QM_TOKEN_FILE=$dir/server/admin.token
mig=$dir/agent/root/sim/mig
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
server_pid= agent_pid=
cleanup() { [ -n "$agent_pid" ] && kill "$agent_pid" 2>/dev/null; [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; true; }
trap cleanup EXIT

# shellcheck source=scripts/poll.sh
source "$(dirname "$qm")/scripts/poll.sh"

start_agent() {
  QM_CRASH_AT=mig-created "$qm" agent --token-file n1.token --node n1 --state "$dir/agent" \
    --simulated-gpus 1 --simulated-model H200 --rescan 1 >>agent.log 2>&1 &
  agent_pid=$!
}
agent_dead() { # gone, or a zombie not yet waited for
  [ ! -e /proc/$agent_pid/stat ] || [ "$(awk '{print $3}' /proc/$agent_pid/stat)" = Z ]
}
table() { "$qm" get resourceclaims 2>/dev/null | awk '$1 != "NAME" && NF >= 4 {print $1, $2, $4}' | sort; }
settled() { # exactly the live claims are listed, each prepared (a deleted one's agent let it go)
  local want got
  want=$(for n in "${live[@]}"; do echo "$n prepared"; done | sort)
  got=$(table | awk '{print $1, $2}') || return 1
  [ "$want" = "$got" ]
}
instances() { [ -f "$mig" ] && grep '^instance' "$mig" | awk '{print "gpu-"$2"-mig-"$4"g"$5"m-"$6}' | sort || true; }

"$qm" server --data "$dir/server" --listen 127.0.0.1:$port >server.log 2>&1 &
server_pid=$!
until_true 60 "the server" test -f "$dir/server/admin.token"
until_true 60 "the server to answer" "$qm" get nodes
"$qm" token create --node n1 | tail -1 >n1.token && chmod 600 n1.token
cat >setup.yaml <<'YAML'
kind: DeviceClass
metadata:
  name: mig-1g.18gb
spec:
  class: mig
  selectors:
    - attribute: profile
      operator: In
      values: [1g.18gb]
YAML
"$qm" apply -f setup.yaml >/dev/null
start_agent
until_true 60 "node n1" "$qm" get node n1
cat >node.yaml <<'YAML'
kind: Node
metadata:
  name: n1
spec:
  unschedulable: false
  fenced: false
  mig:
    gpu-0: Dynamic
YAML
"$qm" apply -f node.yaml >/dev/null
until_true 60 "MIG mode on gpu-0" grep -qs '^mig-mode 0' "$mig"

live=()
kills=0 leaks_destroyed=0 max_instances=0
for ((i = 1; i <= rounds; i++)); do
  name=slice-$i
  printf 'kind: ResourceClaim\nmetadata:\n  name: %s\nspec:\n  requests:\n    - name: s\n      deviceClassName: mig-1g.18gb\n      count: 1\n' "$name" >claim.yaml
  "$qm" apply -f claim.yaml >/dev/null
  until_true 60 "the agent to halt after creating $name's instance" agent_dead
  wait "$agent_pid" || true
  kills=$((kills + 1))
  dead_count=$(instances | wc -l)
  ((dead_count > max_instances)) && max_instances=$dead_count
  if ((i % 2 == 1)); then
    "$qm" delete resourceclaim "$name" >/dev/null # marked; the agent's finalizer keeps it until unprepared
    leaks_destroyed=$((leaks_destroyed + 1))
  else
    live+=("$name")
  fi
  start_agent
  until_true 90 "the claims to settle after restart $i" settled
  if ((${#live[@]} >= 3)); then
    "$qm" delete resourceclaim "${live[0]}" >/dev/null
    live=("${live[@]:1}")
    until_true 60 "an unprepare" settled
  fi
  # The agent reconciles every rescan (1 s): instances must come to be exactly the claims' slices.
  matches() { [ "$(table | awk '{print $3}' | sort)" = "$(instances)" ]; }
  until_true 30 "the instances to match the prepared claims (round $i)" matches
  count=$(grep -c '^instance' "$mig" || true)
  distinct=$(instances | uniq | wc -l)
  ((count == distinct)) || { echo "FAIL: round $i: an instance serves two claims" >&2; exit 1; }
  echo "round $i: killed after create, live claims ${live[*]:-none}, instances $count: $(instances | tr '\n' ' ')"
done
echo "OK: $kills kills -9 after create, $leaks_destroyed claims deleted while the agent was dead; at most $max_instances instances while dead; instances = prepared claims after every restart, none shared"
