#!/usr/bin/env python3
"""Build an OCI image-layout tarball (importable with `ctr images import`) from a list of entries."""
import gzip, hashlib, io, json, sys, tarfile, time

def tar_layer(entries):
    """entries: list of (path, kind, data_or_target, mode)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        for path, kind, data, mode in entries:
            ti = tarfile.TarInfo(path); ti.mtime = 0; ti.uid = ti.gid = 0; ti.mode = mode
            if kind == "dir":
                ti.type = tarfile.DIRTYPE; t.addfile(ti)
            elif kind == "sym":
                ti.type = tarfile.SYMTYPE; ti.linkname = data; t.addfile(ti)
            else:
                ti.size = len(data); t.addfile(ti, io.BytesIO(data))
    raw = buf.getvalue()
    gz = gzip.compress(raw, mtime=0)
    return raw, gz

def build(out, name, entries, config):
    raw, gz = tar_layer(entries)
    diff_id = "sha256:" + hashlib.sha256(raw).hexdigest()
    blobs = {}
    def add(b):
        d = hashlib.sha256(b).hexdigest(); blobs[d] = b; return "sha256:" + d, len(b)
    ld, ls = add(gz)
    cfg = {"architecture": "amd64", "os": "linux", "created": "1970-01-01T00:00:00Z",
           "config": config, "rootfs": {"type": "layers", "diff_ids": [diff_id]},
           "history": [{"created": "1970-01-01T00:00:00Z", "created_by": "quartermaster bench/kubelet/images.py"}]}
    cd, cs = add(json.dumps(cfg, sort_keys=True).encode())
    man = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
           "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": cd, "size": cs},
           "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": ld, "size": ls}]}
    md, ms = add(json.dumps(man, sort_keys=True).encode())
    tag = name.rsplit(":", 1)[1]
    index = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json",
             "manifests": [{"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": md, "size": ms,
                            "platform": {"architecture": "amd64", "os": "linux"},
                            "annotations": {"io.containerd.image.name": name,
                                            "org.opencontainers.image.ref.name": tag}}]}
    with tarfile.open(out, "w", format=tarfile.PAX_FORMAT) as t:
        def put(p, b):
            ti = tarfile.TarInfo(p); ti.size = len(b); ti.mtime = 0; ti.mode = 0o644; t.addfile(ti, io.BytesIO(b))
        for dname in ("blobs", "blobs/sha256"):
            ti = tarfile.TarInfo(dname); ti.type = tarfile.DIRTYPE; ti.mode = 0o755; t.addfile(ti)
        for d, b in blobs.items():
            put("blobs/sha256/" + d, b)
        put("oci-layout", json.dumps({"imageLayoutVersion": "1.0.0"}).encode())
        put("index.json", json.dumps(index, sort_keys=True).encode())
    print(out, name, md)

def base_dirs():
    return [(d, "dir", None, m) for d, m in (("bin", 0o755), ("dev", 0o755), ("etc", 0o755), ("proc", 0o755),
            ("sys", 0o755), ("tmp", 0o1777), ("root", 0o700), ("var", 0o755), ("run", 0o755))]

if __name__ == "__main__":
    kind = sys.argv[1]
    if kind == "pause":
        _, binpath, out = sys.argv[1:]
        e = base_dirs() + [("pause", "file", open(binpath, "rb").read(), 0o755),
                           ("etc/passwd", "file", b"root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n", 0o644),
                           ("etc/group", "file", b"root:x:0:\nnogroup:x:65534:\n", 0o644)]
        build(out, "registry.local/pause:3.10", e, {"Entrypoint": ["/pause"], "User": "65535:65535"})
    else:
        _, bbpath, applets, out = sys.argv[1:]
        e = base_dirs() + [("usr", "dir", None, 0o755), ("usr/bin", "dir", None, 0o755),
                           ("sbin", "dir", None, 0o755), ("usr/sbin", "dir", None, 0o755),
                           ("bin/busybox", "file", open(bbpath, "rb").read(), 0o755),
                           ("etc/passwd", "file", b"root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n", 0o644),
                           ("etc/group", "file", b"root:x:0:\nnogroup:x:65534:\n", 0o644),
                           ("etc/hosts", "file", b"127.0.0.1 localhost\n", 0o644)]
        seen = {"bin/busybox"}
        for line in open(applets):
            p = line.strip().lstrip("/")
            if not p or p in seen: continue
            seen.add(p)
            e.append((p, "sym", "/bin/busybox", 0o777))
        build(out, "registry.local/busybox:1", e,
              {"Cmd": ["/bin/sh"], "Env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"]})
