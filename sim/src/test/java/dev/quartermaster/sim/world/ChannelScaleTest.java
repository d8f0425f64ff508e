package dev.quartermaster.sim.world;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.PrepareState;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.domain.ComputeDomain;
import dev.quartermaster.api.domain.ComputeDomainSpec;
import dev.quartermaster.api.domain.ComputeDomainStatus;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.store.StoreEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * A node as large as they come: 8 GPUs and 2,048 IMEX channels, with a real agent and the real
 * controllers. Every device allocated (8 one-GPU claims, 32 claims of 64 channels in a domain) and
 * prepared, then every claim deleted: the allocation record names exactly the holder of each device
 * and is empty at the end, stays small, and the Node object is never written by an allocation, so a
 * heartbeat has nothing to conflict with.
 */
class ChannelScaleTest {
  private static final int CHANNELS = 2_048;
  private static final int GPUS = 8;
  private static final int PER_CLAIM = ComputeDomainSpec.MAX_CHANNELS_PER_TASK;

  @Test
  void allocatingAndReleasingEveryDeviceOfAFullNodeKeepsTheRecordExactAndSmall() {
    var w = new WholeCluster(2048, 1, GPUS, CHANNELS, Variant.REAL);
    var nodeWrites = new ArrayList<Node>();
    var recordWrites = new int[1];
    w.store()
        .onCommit(
            (revision, changes) -> {
              for (var e : changes) {
                if (e.type() != StoreEvent.Type.DELETE
                    && e.kv().key().startsWith("/registry/nodes/")) {
                  nodeWrites.add(ObjectCodec.fromJson(e.kv().value(), Kinds.NODE));
                }
                if (e.kv().key().startsWith("/registry/" + Kinds.NODE_ALLOCATION.plural() + "/")) {
                  recordWrites[0]++;
                }
              }
            });
    await(
        w,
        "the node published its devices",
        () ->
            w.api()
                .get(Kinds.DEVICE_SLICE, "node-1")
                .map(s -> s.spec().devices().size() == GPUS + CHANNELS)
                .orElse(false));
    var nodeBefore = w.api().get(Kinds.NODE, "node-1").orElseThrow();

    w.api()
        .create(
            new ComputeDomain(
                ObjectMeta.named("big"), new ComputeDomainSpec(1), ComputeDomainStatus.EMPTY));
    var claims = new ArrayList<String>();
    for (int i = 0; i < GPUS; i++) {
      claims.add(create(w, "gpu-" + i, "gpu", 1, Optional.empty()));
    }
    for (int i = 0; i < CHANNELS / PER_CLAIM; i++) {
      claims.add(
          create(
              w,
              "channels-" + i,
              ComputeDomainSpec.CHANNEL_DEVICE_CLASS,
              PER_CLAIM,
              Optional.of("big")));
    }
    await(
        w,
        "every claim allocated and prepared",
        () ->
            claims.stream()
                .allMatch(
                    n ->
                        w.api()
                            .get(Kinds.RESOURCE_CLAIM, n)
                            .map(
                                c ->
                                    Optional.ofNullable(c.status().prepare().get("node-1"))
                                        .filter(s -> s.phase() == PrepareState.Phase.Prepared)
                                        .isPresent())
                            .orElse(false)));

    var record = w.api().get(Kinds.NODE_ALLOCATION, "node-1").orElseThrow();
    assertThat(record.spec().devices()).hasSize(GPUS + CHANNELS);
    for (var name : claims) {
      var c = w.api().get(Kinds.RESOURCE_CLAIM, name).orElseThrow();
      for (var d : c.status().allocation().orElseThrow().devices()) {
        assertThat(record.spec().holder(d.device()))
            .get()
            .matches(
                h -> h.claim().equals(name) && h.uid().equals(c.metadata().uid()),
                d.device() + " held by " + name);
      }
    }
    int bytes = ObjectCodec.toJson(record).length;
    System.out.printf(
        "allocation record of a full node (%d GPUs, %d channels): %d bytes encoded (%.1f per device),"
            + " %d record writes for %d claims%n",
        GPUS, CHANNELS, bytes, bytes / (double) (GPUS + CHANNELS), recordWrites[0], claims.size());
    assertThat(bytes).as("two short strings per device").isLessThan(120 * (GPUS + CHANNELS));

    claims.forEach(n -> w.api().delete(Kinds.RESOURCE_CLAIM, n));
    await(
        w,
        "every claim released and gone, the record empty",
        () ->
            w.api().list(Kinds.RESOURCE_CLAIM).items().isEmpty()
                && w.api()
                    .get(Kinds.NODE_ALLOCATION, "node-1")
                    .map(r -> r.spec().devices().isEmpty())
                    .orElse(false));

    assertThat(nodeWrites)
        .as("the Node was written (heartbeats, status)")
        .isNotEmpty()
        .allMatch(
            n ->
                n.spec().equals(nodeBefore.spec())
                    && n.metadata().labels().equals(nodeBefore.metadata().labels()),
            "spec and labels as before: no allocation lives on the Node");
    assertThat(w.api().get(Kinds.NODE, "node-1").orElseThrow().status().computeDomains()).isEmpty();
  }

  private static String create(
      WholeCluster w, String name, String deviceClass, int count, Optional<String> domain) {
    w.api()
        .create(
            new ResourceClaim(
                ObjectMeta.named(name),
                new ResourceClaimSpec(
                    List.of(new DeviceRequest("devices", deviceClass, count, List.of())), domain),
                ResourceClaimStatus.EMPTY));
    return name;
  }

  private static void await(WholeCluster w, String what, BooleanSupplier done) {
    for (int i = 0; i < 1_200 && !done.getAsBoolean(); i++) {
      w.env().advance(Duration.ofMillis(100));
    }
    assertThat(done.getAsBoolean()).as("%s within two simulated minutes", what).isTrue();
  }
}
