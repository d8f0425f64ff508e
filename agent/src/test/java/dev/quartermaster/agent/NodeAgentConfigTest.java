package dev.quartermaster.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.agent.devices.DeviceRoot;
import dev.quartermaster.agent.runtime.PodmanOptions;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.core.env.SystemEnv;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class NodeAgentConfigTest {
  private final NodeAgentConfig base =
      new NodeAgentConfig(
          unusedApi(),
          "node-1",
          Path.of("/state"),
          DeviceRoot.at(Path.of("/")),
          Path.of("/cdi"),
          new SystemEnv(),
          "boot-1",
          Duration.ofSeconds(10),
          Duration.ofSeconds(90),
          List.of("sleep", "infinity"),
          4,
          Duration.ofSeconds(5),
          false,
          Duration.ofMinutes(5),
          () -> null,
          PodmanOptions.defaults());

  /** A client nothing here calls; only its identity matters. */
  private static ApiClient unusedApi() {
    return (ApiClient)
        Proxy.newProxyInstance(
            ApiClient.class.getClassLoader(),
            new Class<?>[] {ApiClient.class},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "equals" -> proxy == args[0];
                  case "hashCode" -> System.identityHashCode(proxy);
                  default -> throw new UnsupportedOperationException(method.getName());
                });
  }

  @Test
  void withChangesOnlyWhatItSets() {
    var changed = base.withWorkers(2).withCsiPluginDir(Path.of("/csi")).withBootId("boot-2");
    assertThat(changed)
        .isEqualTo(
            new NodeAgentConfig(
                base.api(),
                "node-1",
                base.stateDir(),
                base.deviceRoot(),
                base.cdiDir(),
                base.env(),
                "boot-2",
                base.heartbeat(),
                base.tombstoneTtl(),
                base.helperCommand(),
                2,
                base.rescanPeriod(),
                false,
                base.healthCleanPeriod(),
                base.nvml(),
                base.podman(),
                Optional.of(Path.of("/csi")),
                base.releaseView()));
    assertThat(base.with(b -> b.createControlNodes = true).createControlNodes()).isTrue();
  }

  @Test
  void whatItBuildsIsCheckedAsTheRecordIs() {
    assertThatThrownBy(() -> base.withWorkers(0)).hasMessage("workers must be >= 1: 0");
    assertThatThrownBy(() -> base.withHeartbeat(Duration.ZERO))
        .hasMessage("heartbeat must be positive: PT0S");
    assertThatThrownBy(() -> base.with(b -> b.nodeName = "Not_A_Label"))
        .hasMessageStartingWith("node name 'Not_A_Label'");
  }
}
