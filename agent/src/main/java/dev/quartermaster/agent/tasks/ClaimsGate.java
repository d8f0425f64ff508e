package dev.quartermaster.agent.tasks;

import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.api.claim.PrepareState;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.core.env.Env;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Whether a task's claims let it start on this node: each one prepared here in the ledger and said
 * {@code Prepared} in its status. While they do not, it remembers since when this task incarnation
 * has waited, so the task sync says so only once the wait is worth a write ({@link
 * TaskSync#CLAIMS_WAIT_SAID_AFTER}). Thread-safe.
 */
final class ClaimsGate {
  /** What the claims say. */
  sealed interface Verdict {}

  /**
   * Every claim is prepared here: the CDI devices to start with, and the claims the process is
   * started with.
   */
  record Open(List<String> cdiDevices, List<ClaimRef> used) implements Verdict {}

  /** A claim is not: why, and how long this task incarnation has waited for its claims so far. */
  record Closed(String why, Duration waited) implements Verdict {}

  /** When this agent first found a task incarnation (uid) of that name waiting for its claims. */
  private record Wait(String uid, Instant since) {}

  private final String node;
  private final Env env;
  private final TaskViews views;
  private final Map<String, Wait> waits = new ConcurrentHashMap<>();

  /**
   * @param views the claims as cached, and which of them this node's ledger holds prepared
   */
  ClaimsGate(String node, Env env, TaskViews views) {
    this.node = node;
    this.env = env;
    this.views = views;
  }

  Verdict check(Task t) {
    var cdiDevices = new ArrayList<String>();
    var used = new ArrayList<ClaimRef>();
    for (var claimName : t.spec().claims()) {
      var waiting = waitingFor(t, claimName);
      if (waiting.isPresent()) {
        var uid = t.metadata().uid();
        var since =
            waits
                .compute(
                    t.metadata().name(),
                    (n, w) -> w != null && w.uid().equals(uid) ? w : new Wait(uid, env.now()))
                .since();
        return new Closed(waiting.get(), Duration.between(since, env.now()));
      }
      var claim = views.claim(claimName).orElseThrow();
      cdiDevices.addAll(views.preparedHere(claim.metadata().uid()).orElseThrow());
      used.add(new ClaimRef(claim.metadata().uid(), claimName));
    }
    waits.remove(t.metadata().name());
    return new Open(List.copyOf(cdiDevices), List.copyOf(used));
  }

  /** The task called {@code name} is gone or going: its wait is forgotten. */
  void forget(String name) {
    waits.remove(name);
  }

  /**
   * Why the task cannot start yet because of {@code claimName}; empty when this node's ledger holds
   * the claim prepared and the claim's status says so too. The ledger is what counts: a status says
   * what an agent reported once, and the claim it describes may since have been unprepared,
   * deleted, or replaced by another of the same name (a task replaced in a crash loop finds its
   * predecessor's claim). The status must agree as well, or the task could be reported Running
   * before the store shows its claim Prepared (seen once in 100 real-process replacements).
   */
  private Optional<String> waitingFor(Task t, String claimName) {
    var claim = views.claim(claimName);
    if (claim.isEmpty()) {
      return Optional.of("waiting for claim " + claimName + ": not found");
    }
    var c = claim.get();
    var owner = c.metadata().owner().filter(o -> o.kind().equals(Kinds.TASK.name()));
    if (owner.isPresent() && !owner.get().uid().equals(t.metadata().uid())) {
      return Optional.of(
          "waiting for claim "
              + claimName
              + ": the one there belongs to an earlier task of this name");
    }
    if (c.metadata().isDeleting()) {
      return Optional.of("waiting for claim " + claimName + ": it is being deleted");
    }
    var state = c.status().prepare().get(node);
    // Both: the ledger (what this node holds now) and the claim's status (what everyone else is
    // told),
    // so the task is never reported Running before its claim is Prepared in the store.
    if (views.preparedHere(c.metadata().uid()).isPresent()
        && state != null
        && state.phase() == PrepareState.Phase.Prepared) {
      return Optional.empty();
    }
    var why =
        state == null || state.phase() == PrepareState.Phase.Prepared
            ? "not prepared yet"
            : state.phase() + (state.reason().isEmpty() ? "" : ": " + state.reason());
    return Optional.of(
        "waiting for claim " + claimName + " to be prepared on " + node + " (" + why + ")");
  }
}
