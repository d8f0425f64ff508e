package dev.quartermaster.store.etcd;

import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The etcd server versions this store runs on: 3.5 and later. etcd 3.4 (Debian 12 ships 3.4.23) has
 * known watch bugs that lose or repeat events, which every informer and controller here trusts; it
 * is refused at connect, naming the member and what it runs, rather than found out later as a
 * cluster that silently misses changes.
 */
public final class EtcdVersion {
  public static final int MIN_MAJOR = 3;
  public static final int MIN_MINOR = 5;

  private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+)(?:\\..*)?");

  private EtcdVersion() {}

  /** Whether {@code version} (as etcd reports it: {@code 3.5.17}) is one this store runs on. */
  public static boolean supported(String version) {
    var m = VERSION.matcher(version.strip());
    if (!m.matches()) {
      return false;
    }
    int major = Integer.parseInt(m.group(1));
    int minor = Integer.parseInt(m.group(2));
    return major > MIN_MAJOR || major == MIN_MAJOR && minor >= MIN_MINOR;
  }

  /**
   * Why these members may not serve as the store (each member's endpoint and the version it
   * reported), or empty when each runs a supported version.
   */
  public static Optional<String> refusal(Map<String, String> versionByMember) {
    var old =
        versionByMember.entrySet().stream()
            .filter(e -> !supported(e.getValue()))
            .map(e -> e.getKey() + " runs etcd " + e.getValue())
            .toList();
    if (old.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        String.join(", ", old)
            + "; Quartermaster needs etcd "
            + MIN_MAJOR
            + "."
            + MIN_MINOR
            + " or later (3.4's watches can lose or repeat events): upgrade etcd"
            + " (.ci/install-etcd.sh installs 3.5)");
  }
}
