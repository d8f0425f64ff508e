#!/bin/bash
# ./qm bench kubelet: our DRA plugin on a real single-node Kubernetes cluster (etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler, containerd, kubelet), over a simulated GPU device tree:
# a pod with a GPU, seed 1 (a pod replaced at once, QM_KUBE_ROUNDS times, default 100) against our
# plugin and against the naive one, seed 2 (nvidia-uvm missing at plugin start). The report is
# printed and kept in $QM_KUBE_DIR/report.md. Not part of ./qm test. See README.md here.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dir=${QM_KUBE_DIR:-/tmp/qmk-bench}
need=(kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl etcd containerd
      containerd-shim-runc-v2 ctr runc)

explain() {
  cat >&2 <<MSG
qm bench kubelet: $1

It needs, in one directory named by QM_KUBE_BIN:
  ${need[*]}
Kubernetes v1.36 (kube-*, kubelet, kubectl), containerd 2.1 with its runc v2 shim and ctr, runc,
etcd 3.5 (or 3.4). bench/kubelet/README.md says how each was obtained here (Kubernetes built from
source with Go 1.26; containerd from Debian's .deb; etcd and runc from Debian).
Also: root, openssl, python3, gcc, curl, ss, and a static busybox for the images
(Debian's busybox-static; QM_KUBE_BUSYBOX, default /bin/busybox), or QM_KUBE_IMAGES naming a
directory with the two image tarballs already built (bench/kubelet/images.sh).
MSG
  exit 2
}

[ -n "${QM_KUBE_BIN:-}" ] || explain "QM_KUBE_BIN is not set."
missing=()
for b in "${need[@]}"; do [ -x "$QM_KUBE_BIN/$b" ] || missing+=("$b"); done
[ ${#missing[@]} -eq 0 ] || explain "missing in $QM_KUBE_BIN: ${missing[*]}"
for t in openssl python3 gcc curl ss file; do
  command -v "$t" >/dev/null || explain "$t is not installed."
done
[ "$(id -u)" = 0 ] || explain "it must run as root (the kubelet and containerd need it)."
export QM_KUBE_BIN

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
if [ -z "${QM_KUBE_IMAGES:-}" ]; then
  export QM_KUBE_IMAGES="$dir-images"
  if [ ! -f "$QM_KUBE_IMAGES/busybox-1.oci.tar" ]; then
    echo "qm bench kubelet: building the pause and busybox images into $QM_KUBE_IMAGES" >&2
    "$here/images.sh" "${QM_KUBE_BUSYBOX:-/bin/busybox}" "$QM_KUBE_IMAGES" >&2
  fi
fi

"$root/qm" version >/dev/null # builds the qm jar the plugin runs from, if it is stale
export QM_JAR="$root/cli/target/qm.jar"

trap '"$here/cluster-down.sh" "$dir" >"$dir.down.log" 2>&1 || true' EXIT
"$here/cluster-down.sh" "$dir" --purge >/dev/null 2>&1 || true
mkdir -p "$dir"
echo "qm bench kubelet: starting the cluster in $dir (logs: $dir/logs)" >&2
"$here/cluster-up.sh" "$dir" >&2
echo "qm bench kubelet: running the scenarios (the report follows as it is written) ..." >&2
cd "$root"
status=0
: > "$dir/progress.md"
tail -n +1 -F "$dir/progress.md" 2>/dev/null &
tailer=$!
QM_KUBE_CLUSTER="$dir" ./mvnw -B -ntp -q -pl kubelet -am verify -Dspotless.check.skip=true \
  -Dtest=RealKubeletHarness -Dsurefire.failIfNoSpecifiedTests=false \
  -Dsurefire.redirectTestOutputToFile=true || status=$?
kill "$tailer" 2>/dev/null || true
if [ -f "$dir/report.md" ]; then
  mkdir -p "$root/kubelet/target"
  cp "$dir/report.md" "$root/kubelet/target/real-kubelet-report.md"
  echo "qm bench kubelet: the report is kept in kubelet/target/real-kubelet-report.md" >&2
fi
exit $status
