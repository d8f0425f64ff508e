package dev.quartermaster.control.volume;

import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.queue.Result;
import dev.quartermaster.core.serial.KeyedSerializer;
import dev.quartermaster.core.serial.Serializer;
import dev.quartermaster.csi.plugin.CsiCall;
import dev.quartermaster.csi.plugin.CsiException;
import dev.quartermaster.csi.plugin.CsiPlugin;
import dev.quartermaster.csi.plugin.PluginInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The volume controller's calls to plugins, per leader term: at most one outstanding per volume,
 * destructive ones through the per-plugin {@link Serializer}, none in a new term's first {@link
 * #TAKEOVER_QUIET}. A call's completion records its {@link CallOutcome} and enqueues the volume,
 * whose next reconcile takes it; outcomes of an earlier term are dropped (the calls are idempotent
 * and simply made again).
 */
final class PluginCalls {
  private static final Logger LOG = LoggerFactory.getLogger(PluginCalls.class);

  /**
   * How long a new leader waits before its first destructive call: a deposed leader's last one may
   * run this long.
   */
  static final Duration TAKEOVER_QUIET = SocketPluginConnector.CALL_DEADLINE;

  private final Env env;
  private final PluginConnector connector;
  private final Serializer<String> serializer;
  private final ControlLoop loop;
  private final Map<String, CallOutcome> outcomes = new ConcurrentHashMap<>();
  private final Map<String, Long> inFlight = new ConcurrentHashMap<>();

  /** Plugin info by endpoint; learnt once per endpoint. */
  private final Map<String, PluginInfo> infos = new ConcurrentHashMap<>();

  private volatile long term;

  /** No destructive call of this term starts before this (see {@link #call}). */
  private volatile Instant quietUntil = Instant.MIN;

  PluginCalls(Env env, PluginConnector connector, Serializer<String> serializer, ControlLoop loop) {
    this.env = env;
    this.connector = connector;
    this.serializer = serializer;
    this.loop = loop;
  }

  /**
   * A new term, as the {@code epoch}-th leader: after the first, a predecessor's destructive call
   * may still be running. The last term's calls still in flight keep their serializer slots, so the
   * first call of this term waits for them.
   */
  synchronized void startLeading(long epoch) {
    term++;
    quietUntil = epoch <= 1 ? Instant.MIN : env.now().plus(TAKEOVER_QUIET);
    inFlight.clear();
    outcomes.clear();
    if (serializer instanceof KeyedSerializer<String> k) {
      k.reopen();
    }
  }

  /** Deposed: every call waiting for its turn fails at once; none of them starts. */
  synchronized void stopLeading() {
    term++;
    if (serializer instanceof KeyedSerializer<String> k) {
      k.close(new CancellationException("no longer the leader"));
    }
  }

  /** The outcome of {@code volume}'s last call, if it ended since it was last taken. */
  Optional<CallOutcome> takeOutcome(String volume) {
    return Optional.ofNullable(outcomes.remove(volume));
  }

  boolean inFlight(String volume) {
    return inFlight.containsKey(volume);
  }

  /** The info of the plugin instance at {@code endpoint}, if learnt. */
  Optional<PluginInfo> known(String endpoint) {
    return Optional.ofNullable(infos.get(endpoint));
  }

  void learnt(String endpoint, PluginInfo info) {
    infos.put(endpoint, info);
  }

  /**
   * The plugin's info, or empty after starting to learn it (the volume is enqueued when it
   * arrives).
   */
  Optional<PluginInfo> info(String volume, ControllerRoute.Target target) {
    var known = known(target.instance().endpoint());
    if (known.isPresent()) {
      return known;
    }
    var mine = term;
    inFlight.put(volume, mine);
    CompletionStage<CallOutcome> stage;
    try {
      stage =
          connector
              .connect(target.node(), target.instance())
              .pluginInfo()
              .thenApply(i -> new CallOutcome.Info(target.instance().endpoint(), i));
    } catch (RuntimeException e) {
      stage = CompletableFuture.failedFuture(e);
    }
    finish(
        volume,
        mine,
        CsiCall.GetPluginInfo,
        "plugin " + target.instance().name() + " on " + target.node(),
        stage);
    return Optional.empty();
  }

  /**
   * Starts a destructive call through the serializer; its outcome comes back through the queue. Not
   * in the first {@link #TAKEOVER_QUIET} of a term: the serializer orders this process's calls, but
   * a deposed leader's call may still be running in its own process, up to its deadline, and two
   * destructive calls must never overlap on one plugin (I5).
   */
  Result call(
      Volume v,
      ControllerRoute.Target target,
      CsiCall what,
      String detail,
      Function<CsiPlugin, CompletionStage<CallOutcome>> body) {
    var wait = Duration.between(env.now(), quietUntil);
    if (wait.isPositive()) {
      return Result.requeueAfter(wait);
    }
    var name = v.metadata().name();
    var mine = term;
    inFlight.put(name, mine);
    LOG.debug(
        "volume {}: {} ({}) through {} on {}",
        name,
        what,
        detail,
        target.instance().name(),
        target.node());
    var stage =
        serializer.submit(
            v.spec().plugin(),
            () -> body.apply(connector.connect(target.node(), target.instance())));
    finish(name, mine, what, detail, stage);
    return Result.done();
  }

  private void finish(
      String volume, long mine, CsiCall what, String detail, CompletionStage<CallOutcome> stage) {
    stage.whenComplete(
        (o, err) -> {
          if (term != mine) {
            return;
          }
          outcomes.put(
              volume, err == null ? o : new CallOutcome.Failed(CsiException.of(what, err), detail));
          inFlight.remove(volume);
          loop.enqueue(volume);
        });
  }
}
