package dev.quartermaster.control.workload;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.api.gang.Gang;
import dev.quartermaster.api.gang.GangState;
import dev.quartermaster.api.gang.GangStatus;
import dev.quartermaster.api.gang.WorkloadGangs;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.admission.AdmissionGate;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.core.env.Env;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Stops every live member of each gang that has been {@code Partial} ({@link PartlyPlaced}) for
 * {@link GangRecovery#partialBound}: since this process first saw it so, on its own monotonic clock
 * (a wall clock stepped back does not stretch the wait), or since its status says so (a new leader
 * does not start the wait again): a placed gang short of a member that cannot be placed beside the
 * others (its node drained, lost or unhealthy, no room in its topology value) holds their devices
 * for nothing. Stopped, it holds nothing and is placed again as a whole where it fits, whatever its
 * {@code onMemberFailure}: {@code RestartMember} only gives a replacement the bound to be placed
 * alone.
 */
final class PartialGangs {
  private final Env env;
  private final Informers informers;
  private final AdmissionGate admission;
  private final TaskWriter writer;
  private final EventRecorder events;
  private final GangRecovery recovery;

  /** Gang ({@code <workload uid>/<gang>}) → when this process first saw it partly placed. */
  private final Map<String, Long> seenNanos = new ConcurrentHashMap<>();

  PartialGangs(
      Env env,
      Informers informers,
      AdmissionGate admission,
      TaskWriter writer,
      EventRecorder events,
      GangRecovery recovery) {
    this.env = env;
    this.informers = informers;
    this.admission = admission;
    this.writer = writer;
    this.events = events;
    this.recovery = recovery;
  }

  /**
   * Stops the gangs of {@code w} whose bound is over (a destructive write: only on the newest spec,
   * {@code freshness}), given the views of its groups that may be acted on; returns when the next
   * bound is over, if one runs.
   */
  Optional<Duration> stop(Workload w, Map<String, List<Task>> views, SpecFreshness freshness) {
    if (recovery.partialBound().isEmpty()) {
      return Optional.empty();
    }
    var bound = recovery.partialBound().get();
    var uid = w.metadata().uid();
    Optional<Duration> recheck = Optional.empty();
    for (var gang : WorkloadGangs.of(w.spec())) {
      if (!gang.groups().stream().allMatch(views::containsKey)) {
        continue;
      }
      var tasks = new HashMap<String, List<Task>>();
      gang.groups().forEach(g -> tasks.put(g, views.get(g)));
      var partly =
          PartlyPlaced.of(
              new GangView(
                  gang,
                  w.spec(),
                  uid,
                  tasks,
                  claimsOf(informers, w, gang),
                  g -> admission.admittedReplicas(w, g),
                  true));
      var key = uid + "/" + gang.name();
      if (partly.isEmpty()) {
        seenNanos.remove(key);
        continue;
      }
      long seen = seenNanos.computeIfAbsent(key, k -> env.nanoTime());
      var here = bound.minusNanos(env.nanoTime() - seen);
      var since =
          WorkloadGangs.statusOf(w.status(), gang.name())
              .filter(s -> s.state() == GangState.Partial)
              .flatMap(GangStatus::since);
      var left = since.map(t -> Duration.between(env.now(), t.plus(bound))).orElse(here);
      var wait = here.compareTo(left) < 0 ? here : left;
      if (wait.isPositive()) {
        recheck = Recheck.earliest(recheck, wait);
        continue;
      }
      if (!freshness.stillNewest()) {
        continue;
      }
      var stopped = new ArrayList<String>();
      for (var g : gang.groups()) {
        for (var t : tasks.get(g)) {
          if (t.metadata().owner().map(o -> o.uid().equals(uid)).orElse(false)
              && !t.metadata().isDeleting()
              && !t.status().phase().isFinished()) {
            writer.delete(uid + "/" + g, t);
            stopped.add(t.metadata().name());
          }
        }
      }
      seenNanos.remove(key);
      events.warning(
          w,
          "GangRestarted",
          "gang "
              + w.metadata().name()
              + "/"
              + gang.name()
              + " was partly placed for "
              + bound.toSeconds()
              + "s ("
              + partly.get().describe()
              + "); stopping "
              + String.join(",", stopped)
              + " so that it is placed again as a whole (onMemberFailure: "
              + gang.onMemberFailure()
              + ")");
    }
    return recheck;
  }

  /** Workload {@code uid} is gone: its gangs' waits go too. */
  void forget(String uid) {
    seenNanos.keySet().removeIf(k -> k.startsWith(uid + "/"));
  }

  /** The claims of the gang's groups, from the cache. */
  static List<ResourceClaim> claimsOf(Informers informers, Workload w, Gang gang) {
    var out = new ArrayList<ResourceClaim>();
    for (var g : gang.groups()) {
      out.addAll(
          informers.claims().cache().byIndex(Informers.BY_GROUP, w.metadata().name() + "/" + g));
    }
    return out;
  }
}
