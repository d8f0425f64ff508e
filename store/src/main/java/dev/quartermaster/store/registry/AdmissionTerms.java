package dev.quartermaster.store.registry;

import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.Demand;
import dev.quartermaster.api.queue.Nomination;
import dev.quartermaster.api.queue.QuotaLedger;
import dev.quartermaster.api.workload.Workload;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a ledger says of a workload is the store's to compute, not the writer's to say: an entry's
 * usage is the {@link Demand} of the workload's spec at the replicas the entry admits (its compute
 * domain's channels per task as stored now), and its priority, and a nomination's, are the value of
 * the workload's priority class (0 without one). The quota guard trusted both: an admin write
 * admitting a 4-GPU job with {@code usage: {}} was accepted (8 GPUs then ran against 4 + 2), and so
 * was raising an admitted entry's priority to 10⁹, unpreemptable.
 *
 * <p>Judged only where the write says something new: an entry's usage when its usage or replicas
 * change (a new admission, a scale-down's shrink), its priority when it changes. An entry kept as
 * it was (an eviction marked on it) stays as admitted, even if its workload's class or domain
 * changed since. A disagreement is a 422 naming the entry, the field and the computed value; what
 * was read joins the transaction's compares, so a class or domain changed meanwhile fails it.
 */
final class AdmissionTerms {
  private AdmissionTerms() {}

  /**
   * Refuses {@code a}, the entry of live workload {@code w} in {@code next}, if it says other than
   * {@code w} gives; {@code was}: its entry before this write, for the same uid.
   */
  static void entry(
      ComparedReads reads,
      QuotaLedger next,
      String name,
      Optional<Admitted> was,
      Admitted a,
      Workload w) {
    var field = "spec.admitted." + name;
    var groups = w.spec().groups().stream().map(g -> g.name()).toList();
    for (var g : a.replicas().keySet()) {
      if (!groups.contains(g)) {
        throw invalid(
            next,
            field + ".replicas." + g,
            "workload " + name + " has no group " + g + ": " + groups);
      }
    }
    boolean resized =
        !was.map(b -> b.usage().equals(a.usage()) && b.replicas().equals(a.replicas()))
            .orElse(false);
    if (resized) {
      var usage = usage(reads, w, a.replicas());
      if (!usage.equals(a.usage())) {
        throw invalid(
            next,
            field + ".usage",
            "is "
                + a.usage()
                + ", but the workload's admitted replicas "
                + a.replicas()
                + " use "
                + usage
                + "; the store counts a workload's usage from its spec");
      }
    }
    var forgotten =
        was.map(b -> b.preempted().stream().filter(u -> !a.preempted().contains(u)).toList())
            .orElse(List.of());
    if (!forgotten.isEmpty()) {
      throw invalid(
          next,
          field + ".preempted",
          "drops "
              + forgotten
              + "; a workload admitted again (grown, resized) keeps whom it evicted, or they could"
              + " evict it back");
    }
    if (!was.map(b -> b.priority() == a.priority()).orElse(false)) {
      int priority = priority(reads, next, field + ".priority", w);
      if (priority != a.priority()) {
        throw invalid(next, field + ".priority", disagrees(a.priority(), priority, w));
      }
    }
  }

  /**
   * Refuses {@code n}, a nomination new in {@code next} or changed, unless it is of live workload
   * {@code name} (its uid and queue) at its class's priority: a nomination's priority decides whom
   * it may evict.
   */
  static void nomination(
      ComparedReads reads, QuotaLedger next, String name, Optional<Nomination> was, Nomination n) {
    var field = "spec.nominated." + name;
    var w = reads.get(Kinds.WORKLOAD, name);
    if (w.isEmpty()
        || !w.get().metadata().uid().equals(n.uid())
        || w.get().metadata().isDeleting()
        || !w.get().spec().queueName().equals(n.queue())) {
      throw invalid(
          next,
          field,
          "names no live workload "
              + name
              + " (uid "
              + n.uid()
              + ") of queue "
              + n.queue()
              + "; only a waiting workload is nominated, as it is");
    }
    if (!was.map(b -> b.priority() == n.priority() && b.uid().equals(n.uid())).orElse(false)) {
      int priority = priority(reads, next, field + ".priority", w.get());
      if (priority != n.priority()) {
        throw invalid(next, field + ".priority", disagrees(n.priority(), priority, w.get()));
      }
    }
  }

  /** What {@code w} uses with {@code replicas} of its groups admitted (absent: 0). */
  private static Map<String, Integer> usage(
      ComparedReads reads, Workload w, Map<String, Integer> replicas) {
    var groups =
        w.spec().groups().stream()
            .map(g -> g.withReplicas(replicas.getOrDefault(g.name(), 0)))
            .toList();
    int channels =
        w.spec()
            .computeDomain()
            .flatMap(d -> reads.get(Kinds.COMPUTE_DOMAIN, d))
            .map(d -> d.spec().channelsPerTask())
            .orElse(1); // as the admission controller counts a domain not there yet
    return Demand.of(
        w.spec().withGroups(groups),
        d -> channels,
        c ->
            reads
                .get(Kinds.DEVICE_CLASS, c)
                .map(k -> dev.quartermaster.api.device.mig.MigCharge.computeSlices(k.spec()))
                .orElse(0));
  }

  private static int priority(ComparedReads reads, QuotaLedger next, String field, Workload w) {
    var name = w.spec().priority();
    if (name.isEmpty()) {
      return 0;
    }
    return reads
        .get(Kinds.PRIORITY_CLASS, name.get())
        .map(p -> p.spec().value())
        .orElseThrow(
            () ->
                invalid(
                    next,
                    field,
                    "workload "
                        + w.metadata().name()
                        + " names priority class "
                        + name.get()
                        + ", which does not exist; it is admitted once the class does"));
  }

  private static String disagrees(int said, int computed, Workload w) {
    return "is "
        + said
        + ", but workload "
        + w.metadata().name()
        + "'s priority is "
        + computed
        + " ("
        + w.spec().priority().map(p -> "priority class " + p).orElse("no priority class")
        + "); the store takes a priority from the workload's class";
  }

  private static ApiException invalid(ApiObject object, String field, String rule) {
    return ApiException.invalid(object.ref(), List.of(new Violation(field, rule)));
  }
}
