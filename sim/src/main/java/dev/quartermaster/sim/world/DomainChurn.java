package dev.quartermaster.sim.world;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.domain.ComputeDomainSpec;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * Seed 1's churn, against the simulation or a real {@code qm up}: on one node of a running domain
 * job, a worker ({@code rank-<i>}: a task pinned to the node with its own channel claim in the
 * domain) is replaced by {@code rank-<i+1>} again and again, each time in one of the orders a
 * restart can take, which the test forces by playing the controller itself:
 *
 * <ul>
 *   <li>{@link Order#NEW_FIRST}: the new worker is created and prepared, then the old one deleted
 *       (the new claim's prepare before the old one's unprepare, as in NVIDIA's incident);
 *   <li>{@link Order#OLD_FIRST}: the old worker is deleted, the new one created at once;
 *   <li>{@link Order#INTERLEAVED}: new task, old task deleted, new claim, old claim deleted.
 * </ul>
 *
 * (Each task exists before its claim: a stand-alone claim that no task names yet may be placed on
 * any node, and then cannot follow a task pinned elsewhere.) Every fifth round the job's own worker
 * on that node is deleted as well, and its workload makes it again (task and claims under new uids)
 * while the churn goes on. {@link DomainPromises} judges it.
 */
public final class DomainChurn {
  public enum Order {
    NEW_FIRST,
    OLD_FIRST,
    INTERLEAVED
  }

  /**
   * Where the churn runs: the API, and how to wait for a condition (advance time, or poll) with a
   * bound.
   */
  public interface Driver {
    ApiClient api();

    void await(String what, BooleanSupplier done);
  }

  private final Driver driver;
  private final String domain;
  private final String node;
  private final List<String> command;

  /**
   * @param command what each worker runs (it must keep running)
   */
  public DomainChurn(Driver driver, String domain, String node, List<String> command) {
    this.driver = driver;
    this.domain = domain;
    this.node = node;
    this.command = List.copyOf(command);
  }

  /** Runs {@code rounds} replacements; returns the name of the worker left running. */
  public String run(int rounds, String workload) {
    var api = driver.api();
    create(0);
    awaitRunning(0);
    for (int round = 0; round < rounds; round++) {
      int i = round;
      var order = Order.values()[i % Order.values().length];
      switch (order) {
        case NEW_FIRST -> {
          create(i + 1);
          awaitRunning(i + 1);
          delete(i);
        }
        case OLD_FIRST -> {
          delete(i);
          create(i + 1);
        }
        case INTERLEAVED -> {
          api.create(taskObject(i + 1));
          quietly(() -> api.delete(Kinds.TASK, task(i)));
          api.create(claim(i + 1));
          quietly(() -> api.delete(Kinds.RESOURCE_CLAIM, claimName(i)));
        }
      }
      if (i % 5 == 4) {
        api.list(Kinds.TASK).items().stream()
            .filter(t -> t.spec().node().equals(Optional.of(node)))
            .filter(t -> t.metadata().owner().map(o -> o.name().equals(workload)).orElse(false))
            .forEach(t -> quietly(() -> api.delete(Kinds.TASK, t.metadata().name())));
      }
      awaitRunning(i + 1);
    }
    return task(rounds);
  }

  private void create(int i) {
    driver.api().create(taskObject(i));
    driver.api().create(claim(i));
  }

  private void delete(int i) {
    quietly(() -> driver.api().delete(Kinds.TASK, task(i)));
    quietly(() -> driver.api().delete(Kinds.RESOURCE_CLAIM, claimName(i)));
  }

  private void awaitRunning(int i) {
    driver.await(
        task(i) + " Running",
        () ->
            driver
                .api()
                .get(Kinds.TASK, task(i))
                .map(t -> t.status().phase() == TaskPhase.Running)
                .orElse(false));
  }

  public static String task(int i) {
    return "rank-" + i;
  }

  static String claimName(int i) {
    return task(i) + "-channels";
  }

  private ResourceClaim claim(int i) {
    var request =
        new DeviceRequest("channels", ComputeDomainSpec.CHANNEL_DEVICE_CLASS, 1, List.of());
    return new ResourceClaim(
        ObjectMeta.named(claimName(i)),
        new ResourceClaimSpec(List.of(request), Optional.of(domain)),
        ResourceClaimStatus.EMPTY);
  }

  private Task taskObject(int i) {
    var spec =
        new TaskSpec(
            Optional.of(node),
            command,
            Map.of(),
            List.of(claimName(i)),
            List.of(),
            "exec",
            Optional.empty());
    return new Task(ObjectMeta.named(task(i)), spec, TaskStatus.EMPTY);
  }

  private static void quietly(Runnable delete) {
    try {
      delete.run();
    } catch (ApiException e) {
      if (!e.is(dev.quartermaster.api.error.ApiError.Reason.NotFound)) {
        throw e;
      }
    }
  }
}
