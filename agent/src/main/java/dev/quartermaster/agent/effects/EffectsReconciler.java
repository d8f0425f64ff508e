package dev.quartermaster.agent.effects;

import dev.quartermaster.agent.domaind.DaemonAnswer;
import dev.quartermaster.agent.ledger.NodeEffects;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * Brings the node's side effects to what the ledger wants, by difference: starts the helpers of
 * newly wanted domains, publishes the membership, then stops the helpers of domains no longer
 * wanted. Never toggled by a single prepare or unprepare, only ever driven to {@link
 * NodeEffects#of} the current ledger, so the order in which calls arrive cannot take a domain away
 * from a claim that still needs it.
 *
 * <p>Order matters for I2: a helper starts before its domain is published, and the domain is
 * unpublished before its helper stops. A helper that fails to start keeps its domain unpublished
 * (the failure is returned, and the caller retries later). Calls are serialized.
 */
public final class EffectsReconciler {
  private final HelperProcesses helpers;
  private final DomainMembership membership;
  private final HelperProcesses mpsDaemons;
  private Optional<Set<String>> published = Optional.empty();

  public EffectsReconciler(HelperProcesses helpers, DomainMembership membership) {
    this(helpers, membership, new InMemoryHelperProcesses());
  }

  /** As above, with {@code mpsDaemons} the MPS control daemons, one per GPU name. */
  public EffectsReconciler(
      HelperProcesses helpers, DomainMembership membership, HelperProcesses mpsDaemons) {
    this.helpers = Objects.requireNonNull(helpers, "helpers");
    this.membership = Objects.requireNonNull(membership, "membership");
    this.mpsDaemons = Objects.requireNonNull(mpsDaemons, "mpsDaemons");
  }

  /** What one reconcile did, and what it could not do (empty when the node matches the ledger). */
  public record Outcome(
      Set<String> started,
      Set<String> stopped,
      Set<String> published,
      Set<String> mpsRunning,
      List<String> errors) {
    public Outcome {
      started = Set.copyOf(started);
      stopped = Set.copyOf(stopped);
      published = Set.copyOf(published);
      mpsRunning = Set.copyOf(mpsRunning);
      errors = List.copyOf(errors);
    }

    public boolean ok() {
      return errors.isEmpty();
    }
  }

  /**
   * Drives helpers and membership to the effects {@code desired} gives, evaluated under this
   * reconciler's lock: two callers that read the ledger at different times cannot apply their views
   * out of order, because whoever reconciles last reads the ledger last.
   */
  public synchronized Outcome reconcile(Supplier<NodeEffects> desired) {
    return reconcile(desired.get());
  }

  /** Drives helpers and membership to {@code desired}. */
  public synchronized Outcome reconcile(NodeEffects desired) {
    var errors = new ArrayList<String>();
    var started = new TreeSet<String>();
    var stopped = new TreeSet<String>();
    var wanted = desired.computeDomains();

    var running = new TreeSet<>(helpers.running());
    for (var domain : wanted) {
      if (!running.contains(domain)) {
        try {
          helpers.start(domain);
          running.add(domain);
          started.add(domain);
        } catch (Exception e) {
          errors.add("helper for compute domain " + domain + " failed to start: " + e.getMessage());
        }
      }
    }

    // Publish only domains whose helper runs; a domain with a dead helper is not really joined.
    var toPublish = new TreeSet<String>(wanted);
    toPublish.retainAll(running);
    boolean publishedOk = true;
    if (published.isEmpty() || !published.get().equals(toPublish)) {
      try {
        membership.publish(Set.copyOf(toPublish));
        published = Optional.of(Set.copyOf(toPublish));
      } catch (Exception e) {
        publishedOk = false;
        errors.add("publishing compute domains " + toPublish + " failed: " + e.getMessage());
      }
    }

    // Stop unwanted helpers only once the membership without them is published.
    if (publishedOk) {
      for (var domain : running) {
        if (!wanted.contains(domain)) {
          try {
            helpers.stop(domain);
            stopped.add(domain);
          } catch (Exception e) {
            errors.add(
                "helper for compute domain " + domain + " failed to stop: " + e.getMessage());
          }
        }
      }
    }
    var mps = mps(desired.mpsGpus(), errors);
    return new Outcome(started, stopped, published.orElse(Set.of()), mps, errors);
  }

  /**
   * Starts the MPS daemon of each GPU with a share held and stops the others'; the GPUs whose
   * daemon runs after. A GPU's clients lose their GPU work when its daemon stops, so it is stopped
   * only once no entry holds a share of it (started entries count: a prepare half done keeps it).
   */
  private Set<String> mps(Set<String> wanted, List<String> errors) {
    var running = new TreeSet<>(mpsDaemons.running());
    for (var gpu : wanted) {
      if (!running.contains(gpu)) {
        try {
          mpsDaemons.start(gpu);
          running.add(gpu);
        } catch (Exception e) {
          errors.add("MPS daemon for " + gpu + " failed to start: " + e.getMessage());
        }
      }
    }
    for (var gpu : Set.copyOf(running)) {
      if (!wanted.contains(gpu)) {
        try {
          mpsDaemons.stop(gpu);
          running.remove(gpu);
        } catch (Exception e) {
          errors.add("MPS daemon for " + gpu + " failed to stop: " + e.getMessage());
        }
      }
    }
    return running;
  }

  /**
   * Asks {@code domain}'s helper whether it is ready now (not under this reconciler's lock: it may
   * take a while).
   */
  public DaemonAnswer readiness(String domain) {
    return helpers.readiness(domain);
  }

  /**
   * Forgets what was published, so the next reconcile publishes again (after a Node was
   * re-created).
   */
  public synchronized void invalidate() {
    published = Optional.empty();
  }
}
