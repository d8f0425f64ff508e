package dev.quartermaster.agent.plugins;

import dev.quartermaster.agent.host.CsiEndpoints;
import dev.quartermaster.api.node.PluginInstance;
import dev.quartermaster.api.node.PluginRole;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.env.Env.Cancellable;
import dev.quartermaster.csi.plugin.Capability;
import dev.quartermaster.csi.plugin.CsiCall;
import dev.quartermaster.csi.plugin.CsiCode;
import dev.quartermaster.csi.plugin.CsiException;
import dev.quartermaster.csi.plugin.CsiPlugin;
import dev.quartermaster.csi.plugin.NodeInfo;
import dev.quartermaster.csi.plugin.PluginInfo;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the CSI plugins on this node and probes each (GetPluginInfo, Probe, NodeGetInfo) at start,
 * every {@code period}, sooner while one is unhealthy, and when asked ({@link #probeSoon}, e.g.
 * after a node call found a plugin unreachable). A plugin that hangs or answers garbage is reported
 * unhealthy with a message naming the call; it never stops the agent or the other plugins' probes.
 * Every change of the list goes to {@code onChange} (the agent writes it into {@code
 * Node.status.plugins}).
 *
 * <p>One round at a time: a request during a round runs one more round after it.
 */
public final class PluginProber implements NodePlugins, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PluginProber.class);
  public static final Duration DEFAULT_PERIOD = Duration.ofSeconds(30);
  public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(10);

  /** How soon an unhealthy plugin (or an unreadable plugin directory) is looked at again. */
  private static final Duration UNHEALTHY_RETRY = Duration.ofSeconds(5);

  /** One endpoint as last probed; {@code info} is empty when GetPluginInfo failed. */
  private record Probed(PluginInstance instance, Optional<PluginInfo> info) {}

  private final Env env;
  private final String node;
  private final CsiEndpoints endpoints;
  private final Duration period;
  private final Duration timeout;
  private final Consumer<List<PluginInstance>> onChange;
  private final Map<String, CsiPlugin> clients = new HashMap<>();
  private Map<String, Probed> probed = Map.of();
  private boolean roundRunning;
  private boolean again;
  private boolean closed;
  private Cancellable next = () -> false;

  public PluginProber(
      Env env,
      String node,
      CsiEndpoints endpoints,
      Duration period,
      Duration timeout,
      Consumer<List<PluginInstance>> onChange) {
    this.env = Objects.requireNonNull(env, "env");
    this.node = Objects.requireNonNull(node, "node");
    this.endpoints = Objects.requireNonNull(endpoints, "endpoints");
    this.period = Objects.requireNonNull(period, "period");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    this.onChange = Objects.requireNonNull(onChange, "onChange");
  }

  /** The first round, now. */
  public void start() {
    probeSoon();
  }

  /** Runs a round as soon as the current one (if any) is over. */
  @Override
  public void probeSoon() {
    synchronized (this) {
      if (closed) {
        return;
      }
      if (roundRunning) {
        again = true;
        return;
      }
      roundRunning = true;
      next.cancel();
    }
    env.execute(this::round);
  }

  /** The plugins as last probed, by endpoint. */
  public synchronized List<PluginInstance> instances() {
    return probed.values().stream()
        .map(Probed::instance)
        .sorted(Comparator.comparing(PluginInstance::endpoint))
        .toList();
  }

  @Override
  public synchronized Optional<NodePlugin> nodePlugin(String name) {
    return probed.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .map(Map.Entry::getValue)
        .filter(
            p ->
                p.instance().name().equals(name)
                    && p.instance().healthy()
                    && p.instance().roles().contains(PluginRole.Node)
                    && p.info().isPresent())
        .findFirst()
        .map(
            p ->
                new NodePlugin(
                    p.instance(), p.info().orElseThrow(), clients.get(p.instance().endpoint())))
        .filter(p -> p.client() != null);
  }

  @Override
  public synchronized String whyNot(String name) {
    var found =
        probed.values().stream()
            .map(Probed::instance)
            .filter(i -> i.name().equals(name))
            .sorted(Comparator.comparing(PluginInstance::endpoint))
            .toList();
    if (found.isEmpty()) {
      return "CSI plugin " + name + " is not running on node " + node;
    }
    var unhealthy = found.stream().filter(i -> !i.healthy()).findFirst();
    if (found.stream().noneMatch(PluginInstance::healthy) && unhealthy.isPresent()) {
      return "CSI plugin "
          + name
          + " on node "
          + node
          + " is unhealthy: "
          + unhealthy.get().message();
    }
    if (found.stream().noneMatch(i -> i.roles().contains(PluginRole.Node))) {
      return "CSI plugin " + name + " on node " + node + " serves no node service (NodeGetInfo)";
    }
    return "CSI plugin " + name + " on node " + node + " is not ready";
  }

  private void round() {
    List<String> list;
    try {
      list = endpoints.list();
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "node {}: cannot list the CSI plugin directory; trying again in {}",
          node,
          UNHEALTHY_RETRY,
          e);
      finish(null);
      return;
    }
    var rounds = new ArrayList<CompletableFuture<Probed>>();
    for (var endpoint : list) {
      rounds.add(probeOne(endpoint));
    }
    CompletableFuture.allOf(rounds.toArray(CompletableFuture[]::new))
        .whenComplete(
            (v, e) -> {
              var next = new HashMap<String, Probed>();
              for (var r : rounds) {
                var p = r.join(); // each one completes normally: failures are unhealthy instances
                next.put(p.instance().endpoint(), p);
              }
              finish(next);
            });
  }

  /** Never fails: a failure of any call is an unhealthy instance naming the call. */
  private CompletableFuture<Probed> probeOne(String endpoint) {
    CsiPlugin client;
    synchronized (this) {
      client = clients.get(endpoint);
    }
    if (client == null) {
      try {
        client = Objects.requireNonNull(endpoints.connect(endpoint), "connect returned no client");
      } catch (RuntimeException e) {
        return CompletableFuture.completedFuture(unhealthy(endpoint, "connect: " + e.getMessage()));
      }
      synchronized (this) {
        clients.put(endpoint, client);
      }
    }
    var c = client;
    return CsiCalls.within(env, CsiCall.GetPluginInfo, timeout, c::pluginInfo)
        .thenCompose(
            info -> {
              if (info == null || info.name().isEmpty()) {
                throw new CsiException(
                    CsiCall.GetPluginInfo, CsiCode.UNKNOWN, "answered no plugin name");
              }
              return CsiCalls.within(env, CsiCall.Probe, timeout, c::probe)
                  .thenCompose(
                      ready -> {
                        if (ready == null) {
                          throw new CsiException(
                              CsiCall.Probe, CsiCode.UNKNOWN, "answered nothing");
                        }
                        if (!ready) {
                          return CompletableFuture.completedFuture(
                              instance(
                                  endpoint,
                                  info,
                                  false,
                                  "Probe: the plugin says it is not ready",
                                  Optional.empty()));
                        }
                        return CsiCalls.within(env, CsiCall.NodeGetInfo, timeout, c::nodeInfo)
                            .thenApply(
                                n -> {
                                  if (n == null || n.nodeId().isEmpty()) {
                                    throw new CsiException(
                                        CsiCall.NodeGetInfo,
                                        CsiCode.UNKNOWN,
                                        "answered no node id");
                                  }
                                  return instance(endpoint, info, true, "", Optional.of(n));
                                })
                            .exceptionally(
                                e -> {
                                  var csi = CsiException.of(CsiCall.NodeGetInfo, e);
                                  // A controller-only plugin has no node service: healthy, without
                                  // the Node role.
                                  return csi.code() == CsiCode.UNIMPLEMENTED
                                      ? instance(endpoint, info, true, "", Optional.empty())
                                      : instance(
                                          endpoint,
                                          info,
                                          false,
                                          csi.getMessage(),
                                          Optional.empty());
                                });
                      });
            })
        .exceptionally(
            e -> unhealthy(endpoint, CsiException.of(CsiCall.GetPluginInfo, e).getMessage()));
  }

  private static Probed instance(
      String endpoint,
      PluginInfo info,
      boolean healthy,
      String message,
      Optional<NodeInfo> nodeInfo) {
    var roles = EnumSet.noneOf(PluginRole.class);
    if (info.has(Capability.ControllerService)) {
      roles.add(PluginRole.Controller);
    }
    if (nodeInfo.isPresent()) {
      roles.add(PluginRole.Node);
    }
    return new Probed(
        new PluginInstance(
            word(info.name()),
            endpoint,
            word(info.vendorVersion()),
            roles,
            healthy,
            text(message),
            word(nodeInfo.map(NodeInfo::nodeId).orElse(""))),
        Optional.of(info));
  }

  /**
   * What a plugin says goes into the node's status, which the server validates (one line, at most
   * 256 characters): a plugin answering an odd name must not get every status write of its node
   * refused, heartbeats included, so its text is made to fit here.
   */
  static String word(String s) {
    var clean =
        s.codePoints()
            .filter(c -> !Character.isISOControl(c))
            .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append)
            .toString();
    return clean.length() <= 256 ? clean : clean.substring(0, 255) + "…";
  }

  /** A message: newlines and tabs kept, other control characters shown as '?', at most 4 KiB. */
  static String text(String s) {
    var clean =
        s.codePoints()
            .map(c -> Character.isISOControl(c) && c != '\n' && c != '\t' ? '?' : c)
            .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append)
            .toString();
    return clean.length() <= 4096 ? clean : clean.substring(0, 4095) + "…";
  }

  /**
   * Keeps the name and version last learnt for the endpoint, so the status still says which plugin
   * failed.
   */
  private synchronized Probed unhealthy(String endpoint, String message) {
    var last = Optional.ofNullable(probed.get(endpoint)).map(Probed::instance);
    return new Probed(
        new PluginInstance(
            last.map(PluginInstance::name).orElse(""),
            endpoint,
            last.map(PluginInstance::version).orElse(""),
            Set.of(),
            false,
            text(message),
            ""),
        Optional.empty());
  }

  /**
   * {@code next}: the round's result; null when the directory could not be listed (keep what we
   * had).
   */
  private void finish(Map<String, Probed> result) {
    List<PluginInstance> changed = null;
    var gone = new ArrayList<CsiPlugin>();
    boolean runAgain;
    synchronized (this) {
      if (result != null) {
        var before = instances();
        clients.keySet().stream()
            .filter(ep -> !result.containsKey(ep))
            .toList()
            .forEach(ep -> gone.add(clients.remove(ep)));
        probed = Map.copyOf(result);
        var after = instances();
        if (!after.equals(before)) {
          changed = after;
        }
      }
      roundRunning = false;
      runAgain = again && !closed;
      again = false;
      if (!runAgain && !closed) {
        boolean allWell =
            result != null && result.values().stream().allMatch(p -> p.instance().healthy());
        var delay =
            allWell ? period : UNHEALTHY_RETRY.compareTo(period) < 0 ? UNHEALTHY_RETRY : period;
        next = env.schedule(delay, this::probeSoon);
      }
    }
    gone.forEach(CsiPlugin::close);
    if (changed != null) {
      LOG.info("node {}: CSI plugins {}", node, changed);
      try {
        onChange.accept(changed);
      } catch (RuntimeException e) {
        LOG.warn(
            "node {}: publishing the CSI plugins failed; the next report carries them", node, e);
      }
    }
    if (runAgain) {
      probeSoon();
    }
  }

  @Override
  public void close() {
    List<CsiPlugin> open;
    synchronized (this) {
      closed = true;
      next.cancel();
      open = List.copyOf(clients.values());
      clients.clear();
    }
    open.forEach(CsiPlugin::close);
  }
}
