package dev.quartermaster.agent.prepare;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/**
 * The incident of NVIDIA's issue #641, as operations on a node: claim A holds gpu-0 and needs
 * compute domain cd-1 and is prepared; its workload is force-deleted and claim B (same device, same
 * domain) is prepared, before, between or after A's unprepare, with retries on both sides and a
 * stale retry of A's prepare, and agent restarts in between.
 *
 * <p>After every step the invariants are checked from the caller's side (what it was told): I1 (no
 * device held by two acknowledged claims, and none in the node's own books either), B refused until
 * A is gone, no claim acknowledged prepared after its unprepare was acknowledged, and I2 (while a
 * claim is acknowledged prepared, cd-1 is published and its helper runs). At the end, once A is
 * gone, B must get prepared (the tombstone must not block it forever).
 */
final class IncidentScenarios {
  static final String DEVICE = "gpu-0";
  static final String DOMAIN = "cd-1";

  enum Op {
    PREPARE_A,
    PREPARE_B,
    UNPREPARE_A,
    UNPREPARE_B,
    RESTART
  }

  private IncidentScenarios() {}

  /**
   * Every distinct order of: prepare B twice, unprepare A twice, a stale prepare-A retry; with and
   * without a restart.
   */
  static List<List<Op>> exhaustive() {
    var base = List.of(Op.PREPARE_B, Op.PREPARE_B, Op.UNPREPARE_A, Op.UNPREPARE_A, Op.PREPARE_A);
    var orders = new LinkedHashSet<List<Op>>();
    permute(new ArrayList<>(base), 0, orders);
    var out = new ArrayList<List<Op>>(orders);
    for (var order : orders) {
      for (int at = 0; at <= order.size(); at++) {
        var withRestart = new ArrayList<>(order);
        withRestart.add(at, Op.RESTART);
        out.add(withRestart);
      }
    }
    return out;
  }

  /** {@code count} random sequences over every op, of length 1 to 12, from {@code seed}. */
  static List<List<Op>> random(long seed, int count) {
    var random = new SplittableRandom(seed);
    var out = new ArrayList<List<Op>>();
    for (int i = 0; i < count; i++) {
      var ops = new ArrayList<Op>();
      int n = 1 + random.nextInt(12);
      for (int k = 0; k < n; k++) {
        ops.add(Op.values()[random.nextInt(Op.values().length)]);
      }
      out.add(ops);
    }
    return out;
  }

  private static void permute(List<Op> ops, int from, Set<List<Op>> out) {
    if (from == ops.size()) {
      out.add(List.copyOf(ops));
      return;
    }
    for (int i = from; i < ops.size(); i++) {
      java.util.Collections.swap(ops, from, i);
      permute(ops, from + 1, out);
      java.util.Collections.swap(ops, from, i);
    }
  }

  /**
   * Runs {@code ops} on a fresh node; returns the violations found (empty when all invariants
   * held).
   */
  static List<String> run(Supplier<NodeUnderTest> nodes, List<Op> ops) {
    var node = nodes.get();
    var violations = new ArrayList<String>();
    var prepared =
        new LinkedHashSet<String>(); // acknowledged prepared, not yet acknowledged unprepared
    var unprepared = new LinkedHashSet<String>();
    var trace = new ArrayList<String>();

    trace.add("prepare A");
    if (!node.prepare("a")) {
      violations.add("setup: prepare A on an idle node was refused");
      return violations;
    }
    prepared.add("a");
    check(node, prepared, trace, violations);
    for (var op : ops) {
      node.tick();
      trace.add(op.name());
      switch (op) {
        case PREPARE_A, PREPARE_B -> {
          var claim = op == Op.PREPARE_A ? "a" : "b";
          if (node.prepare(claim)) {
            if (unprepared.contains(claim)) {
              violations.add(
                  "claim "
                      + claim
                      + " acknowledged prepared after its unprepare was acknowledged"
                      + " (a late retry resurrected it) after "
                      + trace);
            }
            if (claim.equals("b") && !unprepared.contains("a")) {
              violations.add("B prepared before A was unprepared, after " + trace);
            }
            prepared.add(claim);
          }
        }
        case UNPREPARE_A, UNPREPARE_B -> {
          var claim = op == Op.UNPREPARE_A ? "a" : "b";
          node.unprepare(claim);
          prepared.remove(claim);
          unprepared.add(claim);
        }
        case RESTART -> node.restart();
      }
      check(node, prepared, trace, violations);
    }
    // Liveness: once A is gone, B (if nobody unprepared it) gets the device after a retry or two.
    if (!unprepared.contains("b")) {
      trace.add("final: unprepare A, retry B");
      node.unprepare("a");
      prepared.remove("a");
      unprepared.add("a");
      node.tick();
      if (node.prepare("b")) {
        prepared.add("b");
      } else {
        violations.add("B was never prepared although A is gone, after " + trace);
      }
      check(node, prepared, trace, violations);
    }
    return violations;
  }

  private static void check(
      NodeUnderTest node, Set<String> prepared, List<String> trace, List<String> violations) {
    if (prepared.size() > 1) {
      violations.add(
          "I1: device " + DEVICE + " acknowledged to " + prepared + " at once, after " + trace);
    }
    for (Map.Entry<String, Set<String>> e : node.holdersByDevice().entrySet()) {
      if (e.getValue().size() > 1) {
        violations.add(
            "I1: the node's books hold "
                + e.getKey()
                + " for "
                + e.getValue()
                + ", after "
                + trace);
      }
    }
    if (!prepared.isEmpty()) {
      if (!node.membership().contains(DOMAIN)) {
        violations.add(
            "I2: "
                + prepared
                + " prepared but domain "
                + DOMAIN
                + " not published, after "
                + trace);
      }
      if (!node.helpers().contains(DOMAIN)) {
        violations.add(
            "I2: "
                + prepared
                + " prepared but the helper of "
                + DOMAIN
                + " is not running, after "
                + trace);
      }
    }
  }
}
