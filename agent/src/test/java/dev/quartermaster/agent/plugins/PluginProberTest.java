package dev.quartermaster.agent.plugins;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.host.CsiEndpoints;
import dev.quartermaster.agent.host.MapCsiEndpoints;
import dev.quartermaster.api.node.PluginInstance;
import dev.quartermaster.api.node.PluginRole;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.csi.plugin.Capability;
import dev.quartermaster.csi.plugin.CsiCall;
import dev.quartermaster.csi.plugin.CsiCode;
import dev.quartermaster.csi.plugin.CsiException;
import dev.quartermaster.csi.plugin.CsiPlugin;
import dev.quartermaster.csi.plugin.NodeInfo;
import dev.quartermaster.csi.plugin.PluginInfo;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Plugin discovery and probing in virtual time: what Node.status.plugins says of a healthy plugin,
 * and of one that hangs, answers garbage, or is not ready — always unhealthy with a message naming
 * the call, never a stuck or crashed agent, and never holding up the other plugins.
 */
class PluginProberTest {
  private static final String A = "unix:///plugins/a.sock";
  private static final String B = "unix:///plugins/b.sock";
  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  private final DeterministicEnv env = new DeterministicEnv(5);
  private final MapCsiEndpoints endpoints = new MapCsiEndpoints();
  private final List<List<PluginInstance>> published = new ArrayList<>();

  /** Answers of a plugin, by call; a call not in the map never answers (hangs). */
  private static CsiPlugin plugin(Map<CsiCall, Function<Object[], Object>> answers) {
    return (CsiPlugin)
        Proxy.newProxyInstance(
            CsiPlugin.class.getClassLoader(),
            new Class<?>[] {CsiPlugin.class},
            (proxy, method, args) -> {
              if (method.getName().equals("close")) {
                return null;
              }
              var call =
                  switch (method.getName()) {
                    case "pluginInfo" -> CsiCall.GetPluginInfo;
                    case "probe" -> CsiCall.Probe;
                    case "nodeInfo" -> CsiCall.NodeGetInfo;
                    default -> throw new UnsupportedOperationException(method.getName());
                  };
              var answer = answers.get(call);
              if (answer == null) {
                return new CompletableFuture<>();
              }
              var value = answer.apply(args);
              return value instanceof Throwable t
                  ? CompletableFuture.failedFuture(t)
                  : CompletableFuture.completedFuture(value);
            });
  }

  private static final PluginInfo INFO =
      new PluginInfo(
          "hostpath.csi.quartermaster.dev",
          "0.3.0",
          Set.of(Capability.ControllerService, Capability.StageUnstageVolume),
          Set.of());

  private static Map<CsiCall, Function<Object[], Object>> healthy() {
    return new HashMap<>(
        Map.of(
            CsiCall.GetPluginInfo,
            a -> INFO,
            CsiCall.Probe,
            a -> true,
            CsiCall.NodeGetInfo,
            a -> new NodeInfo("node-1-id", 0)));
  }

  private PluginProber prober(CsiEndpoints endpoints) {
    var p =
        new PluginProber(env, "node-1", endpoints, Duration.ofSeconds(30), TIMEOUT, published::add);
    p.start();
    return p;
  }

  private PluginInstance only(PluginProber p) {
    assertThat(p.instances()).hasSize(1);
    return p.instances().getFirst();
  }

  @Test
  void aHealthyPluginIsReportedWithItsRolesVersionAndNodeId() {
    endpoints.put(A, plugin(healthy()));
    var p = prober(endpoints);
    env.advance(Duration.ofSeconds(1));

    assertThat(only(p))
        .isEqualTo(
            new PluginInstance(
                "hostpath.csi.quartermaster.dev",
                A,
                "0.3.0",
                Set.of(PluginRole.Controller, PluginRole.Node),
                true,
                "",
                "node-1-id"));
    assertThat(p.nodePlugin("hostpath.csi.quartermaster.dev"))
        .isPresent()
        .get()
        .satisfies(n -> assertThat(n.stages()).isTrue());
    assertThat(published).hasSize(1);
  }

  @Test
  void aPluginThatHangsIsUnhealthyNamingTheCallAndDoesNotHoldUpTheOthers() {
    var hangs = healthy();
    hangs.remove(CsiCall.GetPluginInfo);
    endpoints.put(A, plugin(hangs));
    endpoints.put(B, plugin(healthy()));
    var p = prober(endpoints);
    env.advance(Duration.ofSeconds(6));

    assertThat(p.instances()).hasSize(2);
    var a = p.instances().get(0);
    assertThat(a.healthy()).isFalse();
    assertThat(a.message()).isEqualTo("GetPluginInfo: DEADLINE_EXCEEDED: no answer within PT5S");
    assertThat(p.instances().get(1).healthy()).isTrue();
    assertThat(p.nodePlugin("hostpath.csi.quartermaster.dev"))
        .get()
        .extracting(n -> n.instance().endpoint())
        .isEqualTo(B);
  }

  @Test
  void aHangingNodeGetInfoKeepsThePluginsNameInTheReport() {
    var hangs = healthy();
    hangs.remove(CsiCall.NodeGetInfo);
    endpoints.put(A, plugin(hangs));
    var p = prober(endpoints);
    env.advance(Duration.ofSeconds(6));

    var a = only(p);
    assertThat(a.name()).isEqualTo("hostpath.csi.quartermaster.dev");
    assertThat(a.healthy()).isFalse();
    assertThat(a.message()).isEqualTo("NodeGetInfo: DEADLINE_EXCEEDED: no answer within PT5S");
    assertThat(p.whyNot("hostpath.csi.quartermaster.dev"))
        .isEqualTo(
            "CSI plugin hostpath.csi.quartermaster.dev on node "
                + "node-1 is unhealthy: NodeGetInfo: DEADLINE_EXCEEDED: no answer within PT5S");
  }

  @Test
  void garbageAnswersAreUnhealthyNamingTheCall() {
    var noName = healthy();
    noName.put(CsiCall.GetPluginInfo, a -> new PluginInfo("", "1", Set.of(), Set.of()));
    endpoints.put(A, plugin(noName));
    var nothing = healthy();
    nothing.put(CsiCall.NodeGetInfo, a -> null);
    endpoints.put(B, plugin(nothing));
    var p = prober(endpoints);
    env.advance(Duration.ofSeconds(1));

    assertThat(p.instances())
        .extracting(PluginInstance::message)
        .containsExactly(
            "GetPluginInfo: UNKNOWN: answered no plugin name",
            "NodeGetInfo: UNKNOWN: answered no node id");
    assertThat(p.instances()).noneMatch(PluginInstance::healthy);
  }

  @Test
  void aClientThatThrowsOrCannotConnectIsUnhealthy() {
    var throwing = healthy();
    throwing.put(
        CsiCall.Probe,
        a -> {
          throw new IllegalStateException("decoder: unexpected wire type 7");
        });
    endpoints.put(A, plugin(throwing));
    var failingConnect =
        new CsiEndpoints() {
          @Override
          public List<String> list() {
            return List.of(A, B);
          }

          @Override
          public CsiPlugin connect(String endpoint) {
            if (endpoint.equals(B)) {
              throw new IllegalStateException("connection refused");
            }
            return endpoints.connect(endpoint);
          }
        };
    var p = prober(failingConnect);
    env.advance(Duration.ofSeconds(1));

    assertThat(p.instances())
        .extracting(PluginInstance::message)
        .containsExactly(
            "Probe: UNKNOWN: java.lang.IllegalStateException: decoder: unexpected wire type 7",
            "connect: connection refused");
  }

  @Test
  void aControllerOnlyPluginIsHealthyWithoutTheNodeRole() {
    var controllerOnly = healthy();
    controllerOnly.put(
        CsiCall.NodeGetInfo, a -> new CsiException(CsiCall.NodeGetInfo, CsiCode.UNIMPLEMENTED, ""));
    endpoints.put(A, plugin(controllerOnly));
    var p = prober(endpoints);
    env.advance(Duration.ofSeconds(1));

    assertThat(only(p).healthy()).isTrue();
    assertThat(only(p).roles()).containsExactly(PluginRole.Controller);
    assertThat(p.nodePlugin("hostpath.csi.quartermaster.dev")).isEmpty();
    assertThat(p.whyNot("hostpath.csi.quartermaster.dev")).contains("serves no node service");
  }

  @Test
  void anUnhealthyPluginIsProbedAgainSoonAndAChangeIsPublished() {
    var answers = healthy();
    answers.put(CsiCall.Probe, a -> false);
    endpoints.put(A, plugin(answers));
    var p = prober(endpoints);
    env.advance(Duration.ofSeconds(1));
    assertThat(only(p).message()).isEqualTo("Probe: the plugin says it is not ready");

    answers.put(CsiCall.Probe, a -> true);
    env.advance(Duration.ofSeconds(6)); // well within the 30 s period
    assertThat(only(p).healthy()).isTrue();
    assertThat(published).hasSize(2);

    endpoints.remove(A);
    env.advance(Duration.ofSeconds(31));
    assertThat(p.instances()).isEmpty();
    assertThat(published).hasSize(3);
    p.close();
  }

  @Test
  void aPluginsOddTextIsMadeToFitTheNodeStatusRules() {
    assertThat(PluginProber.word("hostpath\u0000\u001b[31m.csi")).isEqualTo("hostpath[31m.csi");
    assertThat(PluginProber.word("x".repeat(1000))).hasSize(256);
    assertThat(PluginProber.text("line one\nline\ttwo\r\u0000")).isEqualTo("line one\nline\ttwo??");
    assertThat(PluginProber.text("y".repeat(10_000))).hasSize(4096);
  }
}
