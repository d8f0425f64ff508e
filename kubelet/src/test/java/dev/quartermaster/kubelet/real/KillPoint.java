package dev.quartermaster.kubelet.real;

/**
 * Where in one of the kubelet's calls the harness kills the plugin with SIGKILL: {@code BEFORE} the
 * proxy forwards the request (the plugin never sees it), {@code DURING} (forwarded, its answer not
 * yet back: the plugin may or may not have done the work), {@code AFTER} (the plugin answered; the
 * kubelet has not yet been told).
 */
record KillPoint(String call, Phase phase) {
  static final String PREPARE = "NodePrepareResources";
  static final String UNPREPARE = "NodeUnprepareResources";

  enum Phase {
    BEFORE,
    DURING,
    AFTER
  }

  /** Before, during and after each of the two calls: six points. */
  static java.util.List<KillPoint> all() {
    var out = new java.util.ArrayList<KillPoint>();
    for (var call : java.util.List.of(PREPARE, UNPREPARE)) {
      for (var phase : Phase.values()) {
        out.add(new KillPoint(call, phase));
      }
    }
    return out;
  }

  @Override
  public String toString() {
    return phase.name().toLowerCase(java.util.Locale.ROOT) + " " + call;
  }
}
