package dev.quartermaster.agent.node;

import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.agent.ledger.PrepareRequest;
import dev.quartermaster.agent.prepare.ClaimPreparer;
import dev.quartermaster.agent.prepare.PrepareOutcome;
import dev.quartermaster.agent.sync.AgentContext;
import dev.quartermaster.agent.tasks.ClaimRelease;
import dev.quartermaster.agent.tasks.ClaimUse;
import dev.quartermaster.agent.tasks.ClaimUser;
import dev.quartermaster.agent.tasks.ClaimVerdict;
import dev.quartermaster.api.claim.AgentFinalizer;
import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.PrepareState;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.NodeAudience;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.queue.Result;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles one ResourceClaim (by name) with this node: prepares it while it is allocated here and
 * not being deleted, unprepares it otherwise (deleted, deallocated, moved, or re-created under a
 * new uid), and reports the result in {@code status.prepare[<node>]}.
 *
 * <p>A claim this agent prepares carries its {@link AgentFinalizer} ({@code
 * quartermaster.dev/agent-<node>}), put on with its allocation here by the allocator (or by this
 * agent before the prepare, where it is missing) and removed only after the unprepare is durable,
 * so a deleted claim does not vanish from the API while this node still holds its devices.
 *
 * <p>Whether a claim may be released is asked of {@link ClaimRelease} ({@link ClaimUse}, which
 * knows the task processes of this node). A claim whose task is deleting and whose process on this
 * node is gone is unprepared too, and reported {@code Unprepared}: the controller's {@code
 * quartermaster.dev/claims} finalizer on the task waits until no claim of it is {@code Prepared}
 * anywhere, then deletes the claims. While the process may still run, the claim stays prepared
 * (I2).
 *
 * <p>More generally, a claim is never unprepared here while a task process of this node that was
 * started with it (same name and uid) may still run ({@link ClaimVerdict.InUse}): not when the
 * claim is deleted, deallocated, moved, or re-created under a new uid. Its deletion waits (the
 * finalizer stays) and {@code status.prepare[<node>]} says for whom; the process's end requeues the
 * claim.
 *
 * <p>A claim that waits for a device held by another claim, or for the node's control nodes, is
 * retried with backoff, and at once whenever some claim is unprepared on this node or the control
 * nodes change ({@link #wakeWaiters()}).
 */
public final class ClaimSync {
  private static final Logger LOG = LoggerFactory.getLogger(ClaimSync.class);

  private final ApiClient api;
  private final String node;
  private final String finalizer;
  private final Env env;
  private final ClaimPreparer preparer;
  private final Function<String, Optional<ResourceClaim>> cache;
  private final Consumer<String> requeue;
  private final ClaimRelease release;
  private final Set<String> waiting = ConcurrentHashMap.newKeySet();

  /**
   * @param agent the API, this node, the clock
   * @param cache the informer's view of a claim by name
   * @param requeue queues a claim name for another sync
   * @param release whether a claim may be released: wanted here, in use by a task process here, or
   *     free
   */
  public ClaimSync(
      AgentContext agent,
      ClaimPreparer preparer,
      Function<String, Optional<ResourceClaim>> cache,
      Consumer<String> requeue,
      ClaimRelease release) {
    this.api = agent.api();
    this.node = agent.node();
    this.finalizer = new AgentFinalizer(node).name();
    this.env = agent.env();
    this.preparer = preparer;
    this.cache = cache;
    this.requeue = requeue;
    this.release = release;
  }

  /** Whether a change to {@code claim} could concern this node. */
  public boolean concerns(ResourceClaim claim) {
    // What the object says is the rule the server routes this node's watch by: one rule, so what
    // this node keeps is always told to it.
    return NodeAudience.of(claim).includes(node)
        // Asked for every claim event this node is told of: a look into the ledger, not a copy of
        // it.
        || preparer.knowsName(claim.metadata().name());
  }

  /** One reconcile of the claim called {@code name}. */
  public Result sync(String name) {
    try {
      return syncOrThrow(name);
    } catch (ApiException e) {
      if (e.is(Reason.Conflict) || e.is(Reason.NotFound)) {
        return Result.requeue(); // our view is stale; the next sync reads again
      }
      throw e;
    } catch (IOException e) {
      // The checkpoint could not be written: nothing was acknowledged. Retry with backoff.
      LOG.error("claim {}: ledger checkpoint write failed", name, e);
      return Result.requeue();
    }
  }

  private Result syncOrThrow(String name) throws IOException {
    var claim = cache.apply(name);
    var uid = claim.map(c -> c.metadata().uid());
    // Entries for this name that are not the claim we see (it was deleted, or re-created).
    boolean released = false;
    for (var held : preparer.heldNamed(name)) {
      if (!uid.equals(Optional.of(held.uid()))) {
        if (release.verdict(held) instanceof ClaimVerdict.InUse inUse) {
          // The claim object is gone or new, but a process started with this one still runs (I2).
          LOG.info("claim {}: kept prepared, {}", held, ClaimUser.reason(inUse.users()));
          continue;
        }
        preparer.unprepare(held);
        released = true;
      }
    }
    if (claim.isEmpty()) {
      waiting.remove(name);
      if (released) {
        wakeWaiters();
      }
      return Result.done();
    }
    var c = claim.get();
    var verdict = release.verdict(c);
    if (!(verdict instanceof ClaimVerdict.Wanted)) {
      waiting.remove(name);
      if (verdict instanceof ClaimVerdict.InUse inUse && preparer.holds(c.metadata().uid())) {
        keep(c, inUse.users());
        if (released) {
          wakeWaiters();
        }
        return Result.done();
      }
      return release(c, released);
    }
    if (released) {
      wakeWaiters();
    }
    if (!c.metadata().finalizers().contains(finalizer)) {
      c = api.update(new AgentFinalizer(node).on(c));
    }
    var ref = new ClaimRef(c.metadata().uid(), c.metadata().name());
    PrepareRequest request;
    try {
      request =
          new PrepareRequest(
              ref,
              c.status().allocation().orElseThrow().devices().stream()
                  .map(Allocation.AllocatedDevice::device)
                  .toList(),
              c.spec().computeDomain());
    } catch (IllegalArgumentException e) {
      writeState(
          c,
          new PrepareState(
              PrepareState.Phase.Failed,
              e.getMessage(),
              java.util.List.of(),
              Optional.of(env.now())));
      return Result.done();
    }
    var outcome = preparer.prepare(request);
    switch (outcome) {
      case PrepareOutcome.Prepared p -> {
        waiting.remove(name);
        writeState(
            c,
            new PrepareState(
                PrepareState.Phase.Prepared, "", p.cdiDevices(), Optional.of(env.now())));
        return Result.done();
      }
      case PrepareOutcome.Waiting w -> {
        waiting.add(name);
        writeState(
            c,
            new PrepareState(
                PrepareState.Phase.Pending,
                w.reason(),
                java.util.List.of(),
                Optional.of(env.now())));
        return Result.requeue();
      }
      case PrepareOutcome.Refused r -> {
        writeState(
            c,
            new PrepareState(
                PrepareState.Phase.Pending,
                r.reason(),
                java.util.List.of(),
                Optional.of(env.now())));
        var wait = Duration.between(env.now(), r.retryAt());
        return Result.requeueAfter(wait.isNegative() ? Duration.ZERO : wait.plusMillis(1));
      }
      case PrepareOutcome.Failed f -> {
        waiting.remove(name);
        writeState(
            c,
            new PrepareState(
                PrepareState.Phase.Failed,
                f.reason(),
                java.util.List.of(),
                Optional.of(env.now())));
        return Result.done();
      }
    }
  }

  /**
   * A claim no longer wanted here that a task process started with it may still use stays prepared,
   * and says for whom; the process's end requeues it.
   */
  private void keep(ResourceClaim c, List<ClaimUser> inUse) {
    var current = Optional.ofNullable(c.status().prepare().get(node));
    var cdi =
        current
            .filter(s -> s.phase() == PrepareState.Phase.Prepared)
            .map(PrepareState::cdiDevices)
            .orElse(List.of());
    writeState(
        c,
        new PrepareState(
            PrepareState.Phase.Prepared, ClaimUser.reason(inUse), cdi, Optional.of(env.now())));
  }

  /** The claim is no longer for this node: unprepare, report, then let it go (finalizer last). */
  private Result release(ResourceClaim c, boolean alreadyReleased) throws IOException {
    var ref = new ClaimRef(c.metadata().uid(), c.metadata().name());
    boolean ours =
        c.metadata().finalizers().contains(finalizer) || c.status().prepare().containsKey(node);
    if (preparer.knows(ref.uid()) || ours) {
      var outcome = preparer.unprepare(ref);
      if (outcome.result().changed() || alreadyReleased) {
        wakeWaiters();
      }
    }
    var said = Optional.ofNullable(c.status().prepare().get(node)).map(PrepareState::phase);
    // Unprepared is said before the finalizer goes, for a claim being deleted too when it said
    // Prepared: the store lets a node's hold go only once the node says so (or is fenced).
    boolean tell =
        said.filter(p -> p != PrepareState.Phase.Unprepared).isPresent()
            && (!c.metadata().isDeleting() || said.get() == PrepareState.Phase.Prepared);
    if (tell) {
      c =
          writeState(
              c,
              new PrepareState(
                  PrepareState.Phase.Unprepared, "", java.util.List.of(), Optional.of(env.now())));
    }
    if (c.metadata().finalizers().contains(finalizer)) {
      var finalizers = new ArrayList<>(c.metadata().finalizers());
      finalizers.remove(finalizer);
      api.update(c.withMetadata(c.metadata().withFinalizers(finalizers)));
    }
    return Result.done();
  }

  /** Sets {@code status.prepare[node]} unless it already says the same (the time aside). */
  private ResourceClaim writeState(ResourceClaim c, PrepareState state) {
    var current = c.status().prepare().get(node);
    if (current != null
        && current.phase() == state.phase()
        && current.reason().equals(state.reason())
        && current.cdiDevices().equals(state.cdiDevices())) {
      return c;
    }
    var prepare = new HashMap<>(c.status().prepare());
    prepare.put(node, state);
    var s = c.status();
    var next =
        c.withStatus(
            new ResourceClaimStatus(s.allocation(), s.reservedFor(), prepare, s.conditions()));
    return api.updateStatus(next);
  }

  /**
   * Syncs every claim that waits on this node again now (a device was freed, the control nodes
   * changed).
   */
  public void wakeWaiters() {
    // In name order: Set.copyOf would iterate in an order salted afresh by each JVM, and a replayed
    // run must requeue in the same order.
    for (var name : waiting.stream().sorted().toList()) {
      requeue.accept(name);
    }
  }
}
