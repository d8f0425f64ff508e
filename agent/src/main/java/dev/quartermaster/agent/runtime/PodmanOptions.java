package dev.quartermaster.agent.runtime;

import dev.quartermaster.agent.cdi.CdiResolver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How the podman runtime calls podman.
 *
 * @param command podman and its global flags, e.g. {@code [podman, --cgroup-manager=cgroupfs,
 *     --storage-driver=vfs, --runtime=runc]} (what worked as root on our build machines); add
 *     {@code --cdi-spec-dir=DIR} here where podman supports it (Debian's 4.3.1 does not)
 * @param network {@code none} unless the task needs one
 * @param ulimits {@code --ulimit} values; podman's default nofile can exceed the host's hard limit
 *     ({@link #defaults()} uses the host's own hard limits)
 * @param cdiSpecDirs the directories podman reads CDI specs from, lowest priority first; the
 *     runtime resolves the same names there to know which nodes to check inside the container
 * @param killTimeout how long {@code podman kill} may take
 */
public record PodmanOptions(
    List<String> command,
    String network,
    List<String> ulimits,
    List<Path> cdiSpecDirs,
    Duration killTimeout) {
  private static final long PODMAN_DEFAULT_NPROC = 32_768;

  public PodmanOptions {
    command = List.copyOf(command);
    if (command.isEmpty()) {
      throw new IllegalArgumentException("the podman command must not be empty");
    }
    Objects.requireNonNull(network, "network");
    ulimits = List.copyOf(ulimits);
    cdiSpecDirs = List.copyOf(cdiSpecDirs);
    Objects.requireNonNull(killTimeout, "killTimeout");
  }

  /**
   * {@code podman}, no network, the default CDI directories, and limits that runc can set: nofile
   * at this process's hard limit (podman's default, 1048576, can be above it), nproc at podman's
   * own default 32768 or the hard limit if lower (on our build machines runc refused nproc 65536
   * even below the hard limit).
   */
  public static PodmanOptions defaults() {
    var ulimits = new ArrayList<String>();
    long nofile = Math.min(HostLimits.hard("Max open files").orElse(1_048_576L), 1_048_576L);
    long nproc =
        Math.min(
            HostLimits.hard("Max processes").orElse(PODMAN_DEFAULT_NPROC), PODMAN_DEFAULT_NPROC);
    ulimits.add("nofile=" + nofile + ":" + nofile);
    ulimits.add("nproc=" + nproc + ":" + nproc);
    return new PodmanOptions(
        List.of("podman"), "none", ulimits, CdiResolver.DEFAULT_DIRS, Duration.ofSeconds(30));
  }

  /** These options with {@code flags} added to podman's global flags. */
  public PodmanOptions withGlobalFlags(String... flags) {
    var all = new ArrayList<>(command);
    all.addAll(List.of(flags));
    return new PodmanOptions(all, network, ulimits, cdiSpecDirs, killTimeout);
  }
}
