package dev.quartermaster.sim.world;

import dev.quartermaster.agent.checkpoint.LostLedger;
import dev.quartermaster.agent.host.NodeHost;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.control.ControlPlaneOptions;
import dev.quartermaster.control.allocator.Backfill;
import dev.quartermaster.control.leader.LeaderElector;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.serial.KeyedSerializer;
import dev.quartermaster.core.serial.Serializer;
import dev.quartermaster.sim.SimCluster;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * What a run changes of the real system, to show the simulation catches a naive design: what each
 * agent sees of its machine, and the controllers. With controllers of its own a run has one
 * control-plane replica and no fail-over (the naive controllers are not leader-elected).
 *
 * @param hostView what each agent is given of its machine
 * @param controllers starts the controllers of the one replica, returning what stops them
 * @param volumeCalls the volume controller's per-plugin serializer of destructive calls
 * @param allocatorView what the real control plane's allocator reads the cluster through (empty:
 *     the API, as in production)
 * @param alongside controllers started once beside the real control plane, on a connection of their
 *     own (a naive scheduler's helper, say)
 * @param storeRules which of the store's rules across objects judge the writes
 * @param leaderCallbacks what each replica's elector tells its controllers passes through this
 * @param controlView what the real control plane's controllers reach the cluster through (the
 *     identity, as in production; a naive variant drops some of their writes)
 * @param lostLedger what an agent does at start when its ledger lost claims the cluster believes
 *     prepared on its node (the real agent refuses until the operator accepts)
 * @param planeOptions what each real control-plane replica is started with, from the simulation's
 *     own options (a controller's behaviour turned back to what it was before a fix)
 * @param agentView what each agent reaches the cluster through, made anew at each start (the
 *     identity, as in production; a naive variant answers some calls as an earlier agent took them)
 */
public record Variant(
    UnaryOperator<NodeHost> hostView,
    Optional<Controllers> controllers,
    Function<Env, Serializer<String>> volumeCalls,
    Optional<UnaryOperator<ApiClient>> allocatorView,
    Optional<Controllers> alongside,
    SimCluster.Rules storeRules,
    UnaryOperator<LeaderElector.Callbacks> leaderCallbacks,
    UnaryOperator<ApiClient> controlView,
    LostLedger lostLedger,
    UnaryOperator<ControlPlaneOptions> planeOptions,
    UnaryOperator<ApiClient> agentView) {
  /** The real system. */
  public static final Variant REAL =
      new Variant(
          host -> host,
          Optional.empty(),
          KeyedSerializer::new,
          Optional.empty(),
          Optional.empty(),
          SimCluster.Rules.ALL,
          UnaryOperator.identity(),
          UnaryOperator.identity(),
          LostLedger.REFUSE,
          UnaryOperator.identity(),
          UnaryOperator.identity());

  /** Starts a set of controllers over {@code api}; the result stops them. */
  @FunctionalInterface
  public interface Controllers {
    AutoCloseable start(Env env, ApiClient api);
  }

  /**
   * This variant with what {@code change} sets on a {@link Builder} that starts from its fields:
   * the one way to derive a variant, so a new field is added in two places, not in every wither.
   */
  public Variant with(Consumer<Builder> change) {
    var b = new Builder(this);
    change.accept(b);
    return new Variant(
        b.hostView,
        b.controllers,
        b.volumeCalls,
        b.allocatorView,
        b.alongside,
        b.storeRules,
        b.leaderCallbacks,
        b.controlView,
        b.lostLedger,
        b.planeOptions,
        b.agentView);
  }

  /** The fields of a {@link Variant} being derived; see {@link #with}. */
  public static final class Builder {
    public UnaryOperator<NodeHost> hostView;
    public Optional<Controllers> controllers;
    public Function<Env, Serializer<String>> volumeCalls;
    public Optional<UnaryOperator<ApiClient>> allocatorView;
    public Optional<Controllers> alongside;
    public SimCluster.Rules storeRules;
    public UnaryOperator<LeaderElector.Callbacks> leaderCallbacks;
    public UnaryOperator<ApiClient> controlView;
    public LostLedger lostLedger;
    public UnaryOperator<ControlPlaneOptions> planeOptions;
    public UnaryOperator<ApiClient> agentView;

    private Builder(Variant v) {
      hostView = v.hostView;
      controllers = v.controllers;
      volumeCalls = v.volumeCalls;
      allocatorView = v.allocatorView;
      alongside = v.alongside;
      storeRules = v.storeRules;
      leaderCallbacks = v.leaderCallbacks;
      controlView = v.controlView;
      lostLedger = v.lostLedger;
      planeOptions = v.planeOptions;
      agentView = v.agentView;
    }
  }

  public static Variant host(UnaryOperator<NodeHost> view) {
    return REAL.with(b -> b.hostView = view);
  }

  public static Variant controllers(Controllers controllers) {
    return REAL.with(b -> b.controllers = Optional.of(controllers));
  }

  public static Variant volumeCalls(Function<Env, Serializer<String>> serializer) {
    return REAL.with(b -> b.volumeCalls = serializer);
  }

  /** The real system whose allocator reads the cluster through {@code view}. */
  public static Variant allocatorView(UnaryOperator<ApiClient> view) {
    return REAL.with(b -> b.allocatorView = Optional.of(view));
  }

  /** This variant with {@code helper} running beside its control plane. */
  public Variant withAlongside(Controllers helper) {
    return with(b -> b.alongside = Optional.of(helper));
  }

  /** The real system whose electors tell their controllers through {@code view}. */
  public static Variant leaderCallbacks(UnaryOperator<LeaderElector.Callbacks> view) {
    return REAL.with(b -> b.leaderCallbacks = view);
  }

  /** The real system whose controllers reach the cluster through {@code view}. */
  public static Variant controlView(UnaryOperator<ApiClient> view) {
    return REAL.withControlView(view);
  }

  /** This variant with its real controllers reaching the cluster through {@code view}. */
  public Variant withControlView(UnaryOperator<ApiClient> view) {
    return with(b -> b.controlView = view);
  }

  /** This variant on a store without the quota guard: admission checked outside the write. */
  public Variant withoutQuotaGuard() {
    return with(b -> b.storeRules = SimCluster.Rules.NO_QUOTA_GUARD);
  }

  /**
   * This variant on a store blind to shared counters, each device judged as its own: a placement
   * that ignores counters is then checked only by the simulation's judge.
   */
  public Variant withoutSharedCounters() {
    return with(b -> b.storeRules = SimCluster.Rules.NO_SHARED_COUNTERS);
  }

  /** The real system whose agents start as {@code policy} says on a lost ledger. */
  public static Variant lostLedger(LostLedger policy) {
    return REAL.with(b -> b.lostLedger = policy);
  }

  /** This variant with {@code change} applied to its control-plane replicas' options too. */
  public Variant withPlaneOptions(UnaryOperator<ControlPlaneOptions> change) {
    return with(b -> b.planeOptions = o -> change.apply(planeOptions.apply(o)));
  }

  /** The real system whose control-plane replicas are started with {@code change} applied. */
  public static Variant planeOptions(UnaryOperator<ControlPlaneOptions> change) {
    return REAL.withPlaneOptions(change);
  }

  /**
   * The real system whose allocator places as {@code how} says: {@link Backfill#OFF} is the naive
   * variant of issue 44 item 4 (no reservation for the head of the line).
   */
  public static Variant backfill(Backfill how) {
    return planeOptions(o -> o.withBackfill(how));
  }

  /** The real system whose agents reach the cluster through {@code view}, made at each start. */
  public static Variant agentView(UnaryOperator<ApiClient> view) {
    return REAL.with(b -> b.agentView = view);
  }
}
