#!/usr/bin/env bash
# etcd 3.5 for the etcd store's tests, as /usr/local/bin/etcd. Debian 12 ships 3.4.23, which has the
# watch bugs etcd fixed in 3.4.25 and 3.5.8 (reference/peers.md); Debian 13's 3.5 build links only
# libc and runs here. It is fetched from this machine's own Debian mirror with a private apt
# configuration (the system's sources are not touched), and unpacked with dpkg-deb.
set -euo pipefail
if command -v etcd >/dev/null && etcd --version 2>/dev/null | grep -q '^etcd Version: 3\.5\.'; then
  exit 0
fi
# The mirror the system already uses for Debian.
mirror=$(grep -h -m1 -E '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' || true)
if [ -z "$mirror" ]; then
  mirror=$(grep -h -m1 -E '^deb ' /etc/apt/sources.list 2>/dev/null | awk '{print $2}' || true)
fi
if [ -z "$mirror" ]; then
  echo "install-etcd: no Debian mirror found in /etc/apt" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
echo "deb $mirror trixie main" > "$work/sources.list"
opts=(-o "Dir::Etc::sourcelist=$work/sources.list" -o Dir::Etc::sourceparts=/nonexistent
      -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o APT::Sandbox::User=root)
apt-get "${opts[@]}" update -qq
(cd "$work" && apt-get "${opts[@]}" download etcd-server >/dev/null)
dpkg-deb -x "$work"/etcd-server_*.deb "$work/x"
install -m 0755 "$work/x/usr/bin/etcd" /usr/local/bin/etcd
echo "install-etcd: $(etcd --version | head -1)"
