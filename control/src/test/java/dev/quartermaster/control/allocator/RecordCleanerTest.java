package dev.quartermaster.control.allocator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.allocation.DeviceHolder;
import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.allocation.NodeAllocationSpec;
import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.Allocation.AllocatedDevice;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.DeleteResult;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.client.ObjectList;
import dev.quartermaster.api.client.WatchHandle;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.client.WatchScope;
import dev.quartermaster.api.client.Write;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.core.env.DeterministicEnv;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@link RecordCleaner}, case by case: which entries of a node's allocation record go (their claim
 * can never use them) and which stay (a pending claim may resume), decided on live reads, never on
 * a cache that may lag; and which devices the one-time {@link LegacyAdoption} records.
 */
class RecordCleanerTest {
  private static final String NODE = "node-1";

  /** The store: objects by kind and name, listed once by the informers (no watch events follow). */
  private static final class ObjectsByName implements ApiClient {
    final Map<Kind<?>, Map<String, ApiObject>> byKind = new HashMap<>();
    final List<ApiObject> writes = new ArrayList<>();

    void put(ApiObject o) {
      byKind.computeIfAbsent(Kinds.of(o), k -> new HashMap<>()).put(o.metadata().name(), o);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T extends ApiObject> Optional<T> get(Kind<T> kind, String name) {
      return Optional.ofNullable((T) byKind.getOrDefault(kind, Map.of()).get(name));
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T extends ApiObject> ObjectList<T> list(Kind<T> kind, LabelSelector selector) {
      return new ObjectList<>(
          byKind.getOrDefault(kind, Map.of()).values().stream().map(o -> (T) o).toList(), 1);
    }

    @Override
    public <T extends ApiObject> T create(T object) {
      put(object);
      writes.add(object);
      return object;
    }

    @Override
    public <T extends ApiObject> T update(T object) {
      return create(object);
    }

    @Override
    public <T extends ApiObject> T updateStatus(T object) {
      throw new UnsupportedOperationException();
    }

    @Override
    public List<ApiObject> commit(List<Write> writes) {
      throw new UnsupportedOperationException();
    }

    @Override
    public <T extends ApiObject> DeleteResult<T> delete(Kind<T> kind, String name) {
      throw new UnsupportedOperationException();
    }

    @Override
    public <T extends ApiObject> WatchHandle watch(
        Kind<T> kind, long afterRevision, WatchScope scope, WatchHandler<T> handler) {
      return () -> {};
    }
  }

  private static ResourceClaim claim(String name, String uid, Optional<Allocation> allocation) {
    return new ResourceClaim(
        ObjectMeta.named(name).withUid(uid),
        ResourceClaimSpec.EMPTY,
        new ResourceClaimStatus(allocation, List.of(), Map.of(), List.of()));
  }

  private static Optional<Allocation> on(String node, String... devices) {
    return Optional.of(
        new Allocation(
            node,
            java.util.Arrays.stream(devices).map(d -> new AllocatedDevice("gpu", d)).toList()));
  }

  private static NodeAllocation record(Map<String, DeviceHolder> devices) {
    return new NodeAllocation(ObjectMeta.named(NODE), new NodeAllocationSpec(devices), null);
  }

  /** Informers over {@code api} as it is now; what is put later, their caches never see. */
  private static Informers synced(ObjectsByName api) {
    var env = new DeterministicEnv(3);
    var informers = new Informers(env, api);
    informers.start();
    env.runUntilIdle();
    assertThat(informers.hasSynced()).isTrue();
    return informers;
  }

  private static Map<String, DeviceHolder> cleaned(ObjectsByName api, Informers informers) {
    new RecordCleaner(api, informers, NODE).run();
    return api.get(Kinds.NODE_ALLOCATION, NODE).map(r -> r.spec().devices()).orElse(Map.of());
  }

  @Test
  void entriesThatNoClaimCanUseGoAndTheRestStay() {
    var api = new ObjectsByName();
    api.put(claim("pending", "u-pending", Optional.empty()));
    api.put(claim("here", "u-here", on(NODE, "gpu-1")));
    api.put(claim("elsewhere", "u-elsewhere", on("node-2", "gpu-0")));
    api.put(claim("other-device", "u-other", on(NODE, "gpu-5")));
    api.put(claim("recreated", "u-new", Optional.empty()));
    api.put(
        record(
            Map.of(
                "gpu-0",
                    new DeviceHolder(
                        "elsewhere", "u-elsewhere"), // a second reservation a race left here
                "gpu-1", new DeviceHolder("here", "u-here"),
                "gpu-2", new DeviceHolder("pending", "u-pending"), // an allocator may resume it
                "gpu-3", new DeviceHolder("gone", "u-gone"),
                "gpu-4", new DeviceHolder("recreated", "u-old"), // another incarnation of the name
                "gpu-5", new DeviceHolder("other-device", "u-other"),
                "gpu-6", new DeviceHolder("other-device", "u-other"))));
    assertThat(cleaned(api, synced(api))).containsOnlyKeys("gpu-1", "gpu-2", "gpu-5");
  }

  /**
   * The one-time migration of a store from before records ({@link LegacyAdoption}), not the
   * cleaner.
   */
  private static Map<String, DeviceHolder> adopted(ObjectsByName api, Informers informers) {
    assertThat(new LegacyAdoption(api, informers).run(NODE)).isTrue();
    return api.get(Kinds.NODE_ALLOCATION, NODE).map(r -> r.spec().devices()).orElse(Map.of());
  }

  @Test
  void theCleanerOnlyRemovesItLeavesAdoptionToTheMigration() {
    var api = new ObjectsByName();
    api.put(claim("legacy", "u-legacy", on(NODE, "gpu-0", "gpu-1")));
    api.put(record(Map.of("gpu-1", new DeviceHolder("legacy", "u-legacy"))));
    assertThat(cleaned(api, synced(api))).containsOnlyKeys("gpu-1");
  }

  @Test
  void aDeviceAnAllocatedClaimNamesButTheRecordLacksIsAdopted() {
    var api = new ObjectsByName();
    api.put(claim("legacy", "u-legacy", on(NODE, "gpu-0", "gpu-1")));
    api.put(record(Map.of("gpu-1", new DeviceHolder("legacy", "u-legacy"))));
    assertThat(adopted(api, synced(api)))
        .containsEntry("gpu-0", new DeviceHolder("legacy", "u-legacy"))
        .containsEntry("gpu-1", new DeviceHolder("legacy", "u-legacy"));
  }

  @Test
  void aDeviceHeldByAnotherClaimInTheRecordIsNotAdopted() {
    var api = new ObjectsByName();
    api.put(claim("a", "u-a", on(NODE, "gpu-0")));
    api.put(claim("b", "u-b", Optional.empty()));
    api.put(record(Map.of("gpu-0", new DeviceHolder("b", "u-b"))));
    assertThat(adopted(api, synced(api)))
        .containsExactly(Map.entry("gpu-0", new DeviceHolder("b", "u-b")));
  }

  @Test
  void aCleanRecordIsNotWritten() {
    var api = new ObjectsByName();
    api.put(claim("here", "u-here", on(NODE, "gpu-1")));
    api.put(record(Map.of("gpu-1", new DeviceHolder("here", "u-here"))));
    var informers = synced(api);
    cleaned(api, informers);
    assertThat(api.writes).isEmpty();
  }

  /**
   * The cache may lag: a claim it has not seen yet is not gone. The live read keeps its entry; the
   * naive cleaner, deciding on the cache, drops the reservation of a claim being allocated.
   */
  @Test
  void anEntryTheCacheCannotExplainIsKeptWhenTheStoreCan() {
    var api = new ObjectsByName();
    api.put(record(Map.of("gpu-0", new DeviceHolder("new", "u-new"))));
    var informers = synced(api);
    api.put(claim("new", "u-new", on(NODE, "gpu-0"))); // created after the caches listed
    var naiveDrops =
        informers
            .nodeAllocations()
            .cache()
            .get(NODE)
            .orElseThrow()
            .spec()
            .devices()
            .entrySet()
            .stream()
            .filter(
                e ->
                    informers
                        .claims()
                        .cache()
                        .byIndex(Informers.BY_UID, e.getValue().uid())
                        .isEmpty())
            .map(Map.Entry::getKey)
            .toList();
    assertThat(naiveDrops).as("the naive cleaner drops it").containsExactly("gpu-0");
    assertThat(cleaned(api, informers)).containsOnlyKeys("gpu-0");
    assertThat(api.writes).isEmpty();
  }
}
