package dev.quartermaster.csi.hostpath;

/** How the node side makes a volume appear at the staging and target paths. */
public enum Staging {
  /** Bind mounts where this process may make them (probed once at start), links otherwise. */
  AUTO,
  /** {@code mount --bind}; read-only publications are remounted read-only. Needs CAP_SYS_ADMIN. */
  BIND_MOUNT,
  /** Symbolic links: no privilege needed, nothing outlives the process, read-only only recorded. */
  SYMLINK
}
