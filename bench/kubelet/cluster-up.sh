#!/bin/bash
# Bring up a single-node Kubernetes v1.36.2 cluster (etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, containerd, kubelet) under one root directory, from the binaries in $QM_KUBE_BIN
# and the OCI image tarballs in $QM_KUBE_IMAGES (see README.md here). Run by ./qm bench kubelet.
#
#   usage: cluster-up.sh [ROOT]            (default ROOT: $QMK_ROOT or /tmp/qmk)
#   stop:  cluster-down.sh [ROOT] [--purge]
#
# Environment (optional): QMK_NODE (node name, default qmk-node), QMK_ETCD_PORT (2379),
# QMK_ETCD_PEER_PORT (2380), QMK_API_PORT (6443), QMK_KUBELET_PORT (10250), QMK_KCM_PORT (10257),
# QMK_SCHED_PORT (10259), QMK_NODE_IP (default: first address of `hostname -I`).
# After it returns: export KUBECONFIG=$ROOT/kubeconfig/admin.kubeconfig
set -euo pipefail

B=${QM_KUBE_BIN:?set QM_KUBE_BIN to the directory of the Kubernetes binaries (bench/kubelet/README.md)}
IMAGES=${QM_KUBE_IMAGES:?set QM_KUBE_IMAGES to the directory of the pause and busybox image tarballs}
ROOT=${1:-${QMK_ROOT:-/tmp/qmk}}
mkdir -p "$ROOT"
ROOT=$(cd "$ROOT" && pwd)
NODE=${QMK_NODE:-qmk-node}
ETCD_PORT=${QMK_ETCD_PORT:-2379}
ETCD_PEER_PORT=${QMK_ETCD_PEER_PORT:-2380}
API_PORT=${QMK_API_PORT:-6443}
KUBELET_PORT=${QMK_KUBELET_PORT:-10250}
KCM_PORT=${QMK_KCM_PORT:-10257}
SCHED_PORT=${QMK_SCHED_PORT:-10259}
NODE_IP=${QMK_NODE_IP:-$(hostname -I | awk '{print $1}')}
SERVICE_CIDR=198.51.100.0/24       # virtual only (no kube-proxy); a documentation range, not RFC 1918
SERVICE_IP=198.51.100.1
FEATURES=DRADeviceTaints=true,DRADeviceTaintRules=true
export PATH=$B:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

PKI=$ROOT/pki; KC=$ROOT/kubeconfig; LOGS=$ROOT/logs; PIDS=$ROOT/pids; CFG=$ROOT/config
mkdir -p "$PKI" "$KC" "$LOGS" "$PIDS" "$CFG" "$ROOT/etcd" "$ROOT/cdi" "$ROOT/kubelet" \
         "$ROOT/kubelet/volume-plugins" "$ROOT/containerd" "$ROOT/cni/bin" "$ROOT/cni/net.d"

log() { echo "[up $(date +%T)] $*"; }
die() { echo "[up] ERROR: $*" >&2; exit 1; }

for f in kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl etcd containerd \
         containerd-shim-runc-v2 ctr runc; do
  [ -x "$B/$f" ] || die "missing $B/$f"
done
for p in $ETCD_PORT $ETCD_PEER_PORT $API_PORT $KUBELET_PORT $KCM_PORT $SCHED_PORT 10248; do
  if ss -ltnH "sport = :$p" | grep -q .; then die "port $p already in use (is a cluster running? try bench/kubelet/cluster-down.sh)"; fi
done

# ---- record host state the kubelet/containerd change, so cluster-down.sh can restore it -------------------
if [ ! -f "$ROOT/host-state" ]; then
  {
    for s in vm.overcommit_memory kernel.panic kernel.panic_on_oops; do
      echo "sysctl $s $(sysctl -n $s)"
    done
    for d in /var/lib/kubelet /var/log/containers /var/log/pods /usr/libexec/kubernetes \
             /run/containerd /opt/containerd /etc/kubernetes; do
      if [ -e "$d" ]; then echo "existed $d"; else echo "absent $d"; fi
    done
  } > "$ROOT/host-state"
fi

# ---- PKI (self-made CA) --------------------------------------------------------------------------
cert() { # name subject sans(ext line or empty) eku
  local n=$1 subj=$2 sans=$3 eku=$4
  [ -f "$PKI/$n.crt" ] && return 0
  openssl genrsa -out "$PKI/$n.key" 2048 2>/dev/null
  openssl req -new -key "$PKI/$n.key" -subj "$subj" -out "$PKI/$n.csr" 2>/dev/null
  {
    echo "basicConstraints=CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    echo "extendedKeyUsage=$eku"
    [ -n "$sans" ] && echo "subjectAltName=$sans"
  } > "$PKI/$n.ext"
  openssl x509 -req -in "$PKI/$n.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" -CAcreateserial \
    -days 3650 -sha256 -extfile "$PKI/$n.ext" -out "$PKI/$n.crt" 2>/dev/null
}
if [ ! -f "$PKI/ca.crt" ]; then
  log "creating CA, certificates and service-account key in $PKI"
  openssl genrsa -out "$PKI/ca.key" 2048 2>/dev/null
  openssl req -x509 -new -key "$PKI/ca.key" -subj "/CN=qmk-ca" -days 3650 -sha256 \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" \
    -out "$PKI/ca.crt" 2>/dev/null
  openssl genrsa -out "$PKI/sa.key" 2048 2>/dev/null
  openssl rsa -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null
fi
cert apiserver "/CN=kube-apiserver" \
  "IP:127.0.0.1,IP:$SERVICE_IP,IP:$NODE_IP,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local" \
  serverAuth
cert apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" "" clientAuth
cert kubelet "/CN=system:node:$NODE/O=system:nodes" "IP:127.0.0.1,IP:$NODE_IP,DNS:$NODE,DNS:localhost" serverAuth
chmod 600 "$PKI"/*.key

# ---- static tokens -------------------------------------------------------------------------------
if [ ! -f "$PKI/tokens.csv" ]; then
  tok() { openssl rand -hex 16; }
  {
    echo "$(tok),admin,admin-uid,\"system:masters\""
    echo "$(tok),system:kube-controller-manager,kcm-uid"
    echo "$(tok),system:kube-scheduler,sched-uid"
    echo "$(tok),system:node:$NODE,kubelet-uid,\"system:nodes\""
  } > "$PKI/tokens.csv"
  chmod 600 "$PKI/tokens.csv"
fi
token_of() { awk -F, -v u="$1" '$2==u {print $1}' "$PKI/tokens.csv"; }
mkkc() { # file user
  local f=$KC/$1.kubeconfig
  kubectl config --kubeconfig="$f" set-cluster qmk --server="https://127.0.0.1:$API_PORT" \
    --certificate-authority="$PKI/ca.crt" --embed-certs=true >/dev/null
  kubectl config --kubeconfig="$f" set-credentials "$2" --token="$(token_of "$2")" >/dev/null
  kubectl config --kubeconfig="$f" set-context qmk --cluster=qmk --user="$2" >/dev/null
  kubectl config --kubeconfig="$f" use-context qmk >/dev/null
  chmod 600 "$f"
}
mkkc admin admin
mkkc controller-manager system:kube-controller-manager
mkkc scheduler system:kube-scheduler
mkkc kubelet "system:node:$NODE"
export KUBECONFIG=$KC/admin.kubeconfig

start() { # name cmd...
  local n=$1; shift
  log "starting $n (log: $LOGS/$n.log)"
  setsid nohup "$@" >>"$LOGS/$n.log" 2>&1 < /dev/null &
  echo $! > "$PIDS/$n.pid"
}
wait_for() { # what seconds cmd...
  local what=$1 secs=$2; shift 2
  for _ in $(seq 1 "$secs"); do
    if "$@" >/dev/null 2>&1; then log "$what ready"; return 0; fi
    sleep 1
  done
  die "$what not ready after ${secs}s"
}

# ---- etcd ----------------------------------------------------------------------------------------
start etcd "$B/etcd" --name=qmk --data-dir="$ROOT/etcd" \
  --listen-client-urls="http://127.0.0.1:$ETCD_PORT" --advertise-client-urls="http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-cluster="qmk=http://127.0.0.1:$ETCD_PEER_PORT" --listen-metrics-urls="" \
  --quota-backend-bytes=2147483648 --log-level=warn
wait_for etcd 30 curl -fsS "http://127.0.0.1:$ETCD_PORT/health"

# ---- kube-apiserver ------------------------------------------------------------------------------
start kube-apiserver "$B/kube-apiserver" \
  --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$API_PORT" \
  --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
  --tls-cert-file="$PKI/apiserver.crt" --tls-private-key-file="$PKI/apiserver.key" \
  --client-ca-file="$PKI/ca.crt" \
  --token-auth-file="$PKI/tokens.csv" \
  --authorization-mode=Node,RBAC \
  --anonymous-auth=false \
  --service-account-key-file="$PKI/sa.pub" --service-account-signing-key-file="$PKI/sa.key" \
  --service-account-issuer=https://kubernetes.default.svc \
  --service-cluster-ip-range="$SERVICE_CIDR" \
  --endpoint-reconciler-type=none \
  --kubelet-client-certificate="$PKI/apiserver-kubelet-client.crt" \
  --kubelet-client-key="$PKI/apiserver-kubelet-client.key" \
  --kubelet-certificate-authority="$PKI/ca.crt" \
  --kubelet-preferred-address-types=InternalIP,Hostname \
  --runtime-config=resource.k8s.io/v1=true,resource.k8s.io/v1beta2=true \
  --feature-gates="$FEATURES" \
  --allow-privileged=true \
  --v=1
wait_for kube-apiserver 120 kubectl get --raw /readyz

# ---- kube-controller-manager, kube-scheduler -----------------------------------------------------
start kube-controller-manager "$B/kube-controller-manager" \
  --kubeconfig="$KC/controller-manager.kubeconfig" \
  --authentication-kubeconfig="$KC/controller-manager.kubeconfig" \
  --authorization-kubeconfig="$KC/controller-manager.kubeconfig" \
  --bind-address=127.0.0.1 --secure-port="$KCM_PORT" \
  --leader-elect=false \
  --use-service-account-credentials=true \
  --service-account-private-key-file="$PKI/sa.key" \
  --root-ca-file="$PKI/ca.crt" \
  --service-cluster-ip-range="$SERVICE_CIDR" \
  --allocate-node-cidrs=false \
  --flex-volume-plugin-dir="$ROOT/kcm-flexvolume" \
  --feature-gates="$FEATURES" \
  --v=1
start kube-scheduler "$B/kube-scheduler" \
  --kubeconfig="$KC/scheduler.kubeconfig" \
  --authentication-kubeconfig="$KC/scheduler.kubeconfig" \
  --authorization-kubeconfig="$KC/scheduler.kubeconfig" \
  --bind-address=127.0.0.1 --secure-port="$SCHED_PORT" \
  --leader-elect=false \
  --feature-gates="$FEATURES" \
  --v=1

# ---- containerd ----------------------------------------------------------------------------------
CSOCK=$ROOT/containerd/containerd.sock
cat > "$CFG/containerd.toml" <<EOF
version = 3
root = "$ROOT/containerd/root"
state = "$ROOT/containerd/state"
temp = "$ROOT/containerd/tmp"

[grpc]
  address = "$CSOCK"

[ttrpc]
  address = "$CSOCK.ttrpc"

[debug]
  address = "$CSOCK.debug"
  level = "info"

[metrics]
  address = ""

[plugins."io.containerd.internal.v1.opt"]
  path = "$ROOT/containerd/opt"

[plugins."io.containerd.transfer.v1.local"]
  [[plugins."io.containerd.transfer.v1.local".unpack_config]]
    platform = "linux/amd64"
    snapshotter = "native"

[plugins."io.containerd.cri.v1.images"]
  snapshotter = "native"
  disable_snapshot_annotations = true
  [plugins."io.containerd.cri.v1.images".pinned_images]
    sandbox = "registry.local/pause:3.10"

[plugins."io.containerd.cri.v1.runtime"]
  enable_cdi = true
  cdi_spec_dirs = ["$ROOT/cdi"]
  restrict_oom_score_adj = true
  enable_selinux = false
  [plugins."io.containerd.cri.v1.runtime".containerd]
    default_runtime_name = "runc"
    [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]
        BinaryName = "$B/runc"
        SystemdCgroup = false
  [plugins."io.containerd.cri.v1.runtime".cni]
    bin_dirs = ["$ROOT/cni/bin"]
    conf_dir = "$ROOT/cni/net.d"

[plugins."io.containerd.grpc.v1.cri"]
  disable_tcp_service = true
EOF
start containerd "$B/containerd" --config "$CFG/containerd.toml"
wait_for containerd 30 "$B/ctr" --address "$CSOCK" version
for img in "$IMAGES"/*.tar; do
  log "importing $(basename "$img")"
  "$B/ctr" --address "$CSOCK" -n k8s.io images import --snapshotter native --all-platforms "$img" >>"$LOGS/ctr-import.log" 2>&1 \
    || die "ctr import of $img failed (see $LOGS/ctr-import.log)"
done
"$B/ctr" --address "$CSOCK" -n k8s.io images ls -q | grep registry.local || true

# ---- kubelet -------------------------------------------------------------------------------------
cat > "$CFG/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $NODE_IP
port: $KUBELET_PORT
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
tlsCertFile: $PKI/kubelet.crt
tlsPrivateKeyFile: $PKI/kubelet.key
authentication:
  anonymous:
    enabled: false
  webhook:
    enabled: true
  x509:
    clientCAFile: $PKI/ca.crt
authorization:
  mode: Webhook
containerRuntimeEndpoint: unix://$CSOCK
imageServiceEndpoint: unix://$CSOCK
cgroupDriver: cgroupfs
cgroupsPerQOS: false
enforceNodeAllocatable: []
failCgroupV1: false
failSwapOn: false
localStorageCapacityIsolation: false
volumePluginDir: $ROOT/kubelet/volume-plugins
evictionHard:
  memory.available: "1Mi"
  nodefs.available: "1%"
  nodefs.inodesFree: "1%"
  imagefs.available: "1%"
  imagefs.inodesFree: "1%"
evictionPressureTransitionPeriod: 10s
# A pod whose claim's prepare failed (our plugin refuses a device another claim still holds) is
# tried again at the kubelet's next sync of it: syncFrequency, 1 min by default. 5 s lets the harness
# replace a pod 100 times in minutes; the order of the kubelet's calls is the same.
syncFrequency: 5s
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
imageMinimumGCAge: 87600h
serializeImagePulls: false
registerNode: true
resolvConf: /etc/resolv.conf
clusterDomain: cluster.local
podPidsLimit: -1
maxPods: 50
makeIPTablesUtilChains: false
protectKernelDefaults: false
featureGates:
  DRADeviceTaints: true
  DRADeviceTaintRules: true
EOF
start kubelet "$B/kubelet" \
  --config="$CFG/kubelet.yaml" \
  --kubeconfig="$KC/kubelet.kubeconfig" \
  --root-dir="$ROOT/kubelet" \
  --hostname-override="$NODE" \
  --v=2
wait_for "node $NODE registered" 90 kubectl get node "$NODE"
# pods are refused ("serviceaccount default not found") until the controller-manager made it
wait_for "serviceaccount default/default" 60 kubectl -n default get serviceaccount default
kubectl get nodes -o wide
log "cluster up.  export KUBECONFIG=$KC/admin.kubeconfig"
log "kubelet plugin registry: $ROOT/kubelet/plugins_registry   plugins dir: $ROOT/kubelet/plugins"

# What the harness (RealKubeletHarness) reads.
mkdir -p "$ROOT/kubelet/plugins_registry" "$ROOT/kubelet/plugins"
cat > "$ROOT/cluster.env" <<EOF2
ADMIN_KUBECONFIG=$KC/admin.kubeconfig
NODE=$NODE
REGISTRY_DIR=$ROOT/kubelet/plugins_registry
PLUGINS_DIR=$ROOT/kubelet/plugins
CDI_DIR=$ROOT/cdi
PAUSE_IMAGE=registry.local/pause:3.10
BUSYBOX_IMAGE=registry.local/busybox:1
QM_JAR=${QM_JAR:-}
API_SERVER=https://127.0.0.1:$API_PORT
EOF2
