package dev.quartermaster.agent.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.store.registry.ObjectRegistry;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A heartbeat's requests: the status write and the slice publish use what they last wrote or read
 * instead of a read each beat (one request a beat, not three), and still never overwrite another
 * writer's change, learn the operator's spec at the next beat, and put right a slice someone else
 * changed. The naive writers kept here (trusting what they remember) lose those.
 */
class BeatRequestsTest {
  @TempDir Path dir;
  private SqliteStore store;
  private ApiClient real;
  private final List<String> requests = new ArrayList<>();
  private ApiClient counted;

  @BeforeEach
  void open() {
    store = SqliteStore.open(dir.resolve("store.db"));
    real = new ObjectRegistry(store, new DeterministicEnv(7));
    counted =
        (ApiClient)
            Proxy.newProxyInstance(
                ApiClient.class.getClassLoader(),
                new Class<?>[] {ApiClient.class},
                (proxy, method, args) -> {
                  requests.add(method.getName());
                  try {
                    return method.invoke(real, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
  }

  @AfterEach
  void close() {
    store.close();
  }

  private static UnaryOperator<NodeStatus> beat(int second) {
    return s -> s.withHeartbeat(Optional.of(Instant.EPOCH.plusSeconds(second)));
  }

  private static final Condition DOWN =
      new Condition("AgentReady", Condition.Status.False, "NodeLost", "", Optional.empty());

  /** Someone else's status write: node lifecycle saying the node is lost. */
  private void markLost() {
    var n = real.get(Kinds.NODE, "node-1").orElseThrow();
    real.updateStatus(n.withStatus(n.status().withConditions(List.of(DOWN))));
  }

  @Test
  void aBeatIsOneRequestOnceTheNodeIsKnown() {
    var writer = new NodeStatusWriter(counted, "node-1");
    writer.update(beat(0)); // registration: a read, then the create
    requests.clear();
    for (int i = 1; i <= 5; i++) {
      writer.update(beat(10 * i));
    }
    assertThat(requests).containsOnly("updateStatus").hasSize(5);
    assertThat(real.get(Kinds.NODE, "node-1").orElseThrow().status().heartbeat())
        .contains(Instant.EPOCH.plusSeconds(50));
  }

  @Test
  void aBeatNeverOverwritesAnotherWritersChange() {
    var writer = new NodeStatusWriter(counted, "node-1");
    writer.update(beat(0));
    markLost();
    writer.update(beat(10));
    var status = real.get(Kinds.NODE, "node-1").orElseThrow().status();
    assertThat(status.conditions()).containsExactly(DOWN);
    assertThat(status.heartbeat()).contains(Instant.EPOCH.plusSeconds(10));
  }

  @Test
  void theNaiveWriterThatWritesWhatItRemembersLosesIt() {
    var writer = new NodeStatusWriter(counted, "node-1");
    var remembered = writer.update(beat(0));
    markLost();
    // Naive: the remembered status with the new beat, written over the current revision.
    var current = real.get(Kinds.NODE, "node-1").orElseThrow();
    real.updateStatus(current.withStatus(beat(10).apply(remembered.status())));
    assertThat(real.get(Kinds.NODE, "node-1").orElseThrow().status().conditions())
        .doesNotContain(DOWN);
  }

  @Test
  void theOperatorsSpecIsLearnedAtTheNextBeat() {
    var writer = new NodeStatusWriter(counted, "node-1");
    writer.update(beat(0));
    var n = real.get(Kinds.NODE, "node-1").orElseThrow();
    real.update(new Node(n.metadata(), new NodeSpec(true, false), n.status()));
    writer.update(beat(10));
    assertThat(writer.lastSpec()).contains(new NodeSpec(true, false));
  }

  @Test
  void nothingToWriteIsAFreshReadsToSay() {
    var writer = new NodeStatusWriter(counted, "node-1");
    writer.update(s -> s.withConditions(List.of(DOWN)));
    // Someone else clears the condition; the writer still remembers it set.
    var n = real.get(Kinds.NODE, "node-1").orElseThrow();
    real.updateStatus(n.withStatus(n.status().withConditions(List.of())));
    writer.update(s -> s.withConditions(List.of(DOWN)));
    assertThat(real.get(Kinds.NODE, "node-1").orElseThrow().status().conditions())
        .containsExactly(DOWN);
  }

  private static List<Device> gpus(int n) {
    var out = new ArrayList<Device>();
    for (int g = 0; g < n; g++) {
      out.add(new Device("gpu-" + g, "gpu", Map.of(), Device.Health.Healthy, ""));
    }
    return out;
  }

  @Test
  void anUnchangedSliceIsReadOncePerReadEvery() {
    var slice = new SlicePublisher(counted, "node-1");
    slice.publish(gpus(8)); // a read, then the create
    requests.clear();
    for (int i = 0; i < 2 * SlicePublisher.READ_EVERY; i++) {
      slice.publish(gpus(8));
    }
    assertThat(requests).containsOnly("get").hasSize(2);
    slice.publish(gpus(7)); // changed: the update alone
    assertThat(requests.subList(2, requests.size())).containsExactly("update");
  }

  @Test
  void aSliceSomeoneElseChangedIsPutRightWithinReadEveryPublishes() {
    var slice = new SlicePublisher(counted, "node-1");
    slice.publish(gpus(8));
    var s = real.get(Kinds.DEVICE_SLICE, "node-1").orElseThrow();
    real.update(new DeviceSlice(s.metadata(), new DeviceSliceSpec("node-1", gpus(2)), s.status()));
    for (int i = 0; i < SlicePublisher.READ_EVERY; i++) {
      slice.publish(gpus(8));
    }
    assertThat(real.get(Kinds.DEVICE_SLICE, "node-1").orElseThrow().spec().devices()).hasSize(8);
  }
}
