#!/bin/bash
# Builds the two images the harness's cluster runs, as OCI tarballs for `ctr images import` (no
# registry is needed): registry.local/pause:3.10 (pause.c, compiled static) and
# registry.local/busybox:1 (a static busybox and a link per applet).
#   usage: images.sh BUSYBOX OUTDIR     (BUSYBOX: a static busybox, e.g. Debian busybox-static's /bin/busybox)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
busybox=${1:?usage: images.sh BUSYBOX OUTDIR}
out=${2:?usage: images.sh BUSYBOX OUTDIR}
file "$busybox" 2>/dev/null | grep -q 'statically linked' || {
  echo "images.sh: $busybox is not a static binary (install Debian's busybox-static: /bin/busybox)" >&2; exit 2; }
mkdir -p "$out"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
gcc -O2 -static -o "$work/pause" "$here/pause.c"
"$busybox" --list-full > "$work/applets.txt"
python3 "$here/images.py" pause "$work/pause" "$out/pause-3.10.oci.tar"
python3 "$here/images.py" busybox "$busybox" "$work/applets.txt" "$out/busybox-1.oci.tar"
