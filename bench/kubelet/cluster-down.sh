#!/bin/bash
# Stop the cluster cluster-up.sh started and undo its side effects on the host.
#   usage: cluster-down.sh [ROOT] [--purge]     (default ROOT: $QMK_ROOT or /tmp/qmk; --purge also deletes ROOT)
set -uo pipefail
B=${QM_KUBE_BIN:?set QM_KUBE_BIN to the directory of the Kubernetes binaries}
ROOT=${QMK_ROOT:-/tmp/qmk}
PURGE=0
for a in "$@"; do
  case $a in --purge) PURGE=1 ;; *) ROOT=$a ;; esac
done
[ -d "$ROOT" ] || { echo "[down] no $ROOT"; exit 0; }
ROOT=$(cd "$ROOT" && pwd)
PIDS=$ROOT/pids
CSOCK=$ROOT/containerd/containerd.sock
log() { echo "[down $(date +%T)] $*"; }

stop() { # name [timeout]
  local n=$1 t=${2:-20} f=$PIDS/$1.pid pid
  [ -f "$f" ] || return 0
  pid=$(cat "$f")
  if kill -0 "$pid" 2>/dev/null; then
    log "stopping $n (pid $pid)"
    kill -TERM "$pid"
    for _ in $(seq 1 $((t * 5))); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    if kill -0 "$pid" 2>/dev/null; then log "killing $n (pid $pid)"; kill -KILL "$pid"; sleep 0.5; fi
  fi
  rm -f "$f"
}

# 1. kubelet first, so it does not restart containers we remove; then any other process whose
#    pid file was put into $PIDS (e.g. a DRA kubelet plugin started by hand).
stop kubelet
for f in "$PIDS"/*.pid; do
  [ -e "$f" ] || continue
  n=$(basename "$f" .pid)
  case $n in containerd|kube-scheduler|kube-controller-manager|kube-apiserver|etcd) ;; *) stop "$n" ;; esac
done

# 2. all containers and sandboxes (pause containers are tasks too), then containerd.
if [ -S "$CSOCK" ] && "$B/ctr" --address "$CSOCK" version >/dev/null 2>&1; then
  for ns in $("$B/ctr" --address "$CSOCK" namespaces ls -q); do
    C="$B/ctr --address $CSOCK -n $ns"
    for t in $($C tasks ls -q 2>/dev/null); do
      $C tasks kill -s SIGKILL "$t" >/dev/null 2>&1
    done
    sleep 1
    for t in $($C tasks ls -q 2>/dev/null); do $C tasks delete -f "$t" >/dev/null 2>&1; done
    for c in $($C containers ls -q 2>/dev/null); do $C containers delete "$c" >/dev/null 2>&1; done
  done
fi
stop containerd
# shims that survived (they are re-parented to init and hold our state dir): end them by pid.
for p in $(pgrep -f "containerd-shim-runc-v2 .*-address $CSOCK" || true); do
  log "killing leftover shim $p"; kill -KILL "$p" 2>/dev/null
done

# 3. control plane.
stop kube-scheduler
stop kube-controller-manager
stop kube-apiserver 10   # it hangs ~20 s+ after "HTTPServerStoppedListening"; SIGKILL after 10 s is harmless
stop etcd

# 4. mounts under ROOT (the kubelet bind-mounts its root dir onto itself; pod volumes, sandbox shm,
#    container rootfs), deepest first.
for _ in 1 2 3; do
  mps=$(awk -v r="$ROOT" '$2==r || index($2, r"/")==1 {print $2}' /proc/self/mounts | sort -r)
  [ -z "$mps" ] && break
  for m in $mps; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done
done
awk -v r="$ROOT" '$2==r || index($2, r"/")==1 {print "[down] still mounted: " $2}' /proc/self/mounts

# 5. host state recorded by cluster-up.sh: sysctls and directories created outside ROOT.
if [ -f "$ROOT/host-state" ]; then
  while read -r kind a b; do
    case $kind in
      sysctl)
        cur=$(sysctl -n "$a" 2>/dev/null)
        if [ "$cur" != "$b" ]; then log "sysctl $a: $cur -> $b"; sysctl -qw "$a=$b"; fi ;;
      absent)
        if [ -e "$a" ]; then
          if awk -v r="$a" '$2==r || index($2, r"/")==1 {f=1} END {exit !f}' /proc/self/mounts; then
            log "not removing $a: something is mounted under it"
          else
            log "removing $a"; rm -rf "$a"
          fi
        fi ;;
    esac
  done < "$ROOT/host-state"
  [ "$PURGE" = 1 ] || mv "$ROOT/host-state" "$ROOT/host-state.restored"
fi

# 6. cgroups containerd/runc created for the pods (cgroupsPerQOS=false, cgroupfs driver:
#    /sys/fs/cgroup/<controller>/k8s.io/<container-id>); remove the empty ones.
for d in /sys/fs/cgroup/*/k8s.io; do
  [ -d "$d" ] || continue
  find "$d" -mindepth 1 -depth -type d -exec rmdir {} \; 2>/dev/null
  rmdir "$d" 2>/dev/null
done

if [ "$PURGE" = 1 ]; then log "removing $ROOT"; rm -rf "$ROOT"; fi
log "done"
