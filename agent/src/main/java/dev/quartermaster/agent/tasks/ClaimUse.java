package dev.quartermaster.agent.tasks;

import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.agent.runtime.TaskState;
import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Task;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Which claims the live task runs of this node use: the one seam between the claim sync and the
 * task sync. The task sync records here each process it starts, with the claims (name and uid) it
 * started it with, and forgets it once its end is reported; the claim sync asks here whether a
 * claim may be released ({@link ClaimRelease}), and the volume releaser whether a task
 * incarnation's process may still run ({@link #mayRun}).
 *
 * <pre>
 * claim allocated here, not deleting, and its owner task not done with it → Wanted
 *   (done with it: the task, same uid, is deleting and no process of it may still run here)
 * otherwise, a process started with it (same name, same uid) may still run → InUse, naming each
 *   such task as starting, running or stopping (its task gone, replaced or deleting)
 * otherwise → Free
 * </pre>
 *
 * A process "may still run" until its handle says it finished: not when the store says its task
 * ended or went away (I2; Nomad #26831 released on the store's word). When one ends, or a task is
 * deleted before it ran here, the task sync lets its claims go ({@link #letGo}) and the claim sync
 * looks at them again. Thread-safe.
 */
public final class ClaimUse implements ClaimRelease {
  private final String node;
  private final Function<String, Optional<Task>> tasks;
  private final Consumer<String> recheckClaim;

  /**
   * The processes this agent started, by task name; a run is forgotten once its end is reported.
   */
  private final Map<String, TaskRun> runs = new ConcurrentHashMap<>();

  /**
   * @param tasks the informer's cache of tasks by name, as it is (while the informer first fills it
   *     too: a deleting task's event queues its claims before the informer says it has synced)
   * @param recheckClaim queues a claim name for the claim sync
   */
  public ClaimUse(
      String node, Function<String, Optional<Task>> tasks, Consumer<String> recheckClaim) {
    this.node = Objects.requireNonNull(node, "node");
    this.tasks = Objects.requireNonNull(tasks, "tasks");
    this.recheckClaim = Objects.requireNonNull(recheckClaim, "recheckClaim");
  }

  @Override
  public ClaimVerdict verdict(ResourceClaim claim) {
    boolean wanted =
        claim.status().allocation().map(Allocation::node).filter(node::equals).isPresent()
            && !claim.metadata().isDeleting()
            && !ownerDone(claim);
    return wanted
        ? new ClaimVerdict.Wanted()
        : verdict(new ClaimRef(claim.metadata().uid(), claim.metadata().name()));
  }

  @Override
  public ClaimVerdict verdict(ClaimRef held) {
    var users = usersOf(held);
    return users.isEmpty() ? new ClaimVerdict.Free() : new ClaimVerdict.InUse(users);
  }

  /**
   * Whether a process of this task incarnation may still run here (its claims and volumes stay:
   * I2).
   */
  public boolean mayRun(String task, String uid) {
    var run = runs.get(task);
    return run != null && run.uid().equals(uid) && run.mayRun();
  }

  /** The claim's owner task (same uid) is deleting and no process of it may still run here. */
  private boolean ownerDone(ResourceClaim claim) {
    return claim
        .metadata()
        .owner()
        .filter(o -> o.kind().equals(Kinds.TASK.name()))
        .flatMap(o -> tasks.apply(o.name()).filter(t -> t.metadata().uid().equals(o.uid())))
        .filter(t -> t.metadata().isDeleting() && !mayRun(t.metadata().name(), t.metadata().uid()))
        .isPresent();
  }

  /**
   * The task processes here that were started with {@code claim} (same name, same uid) and may
   * still run.
   */
  private List<ClaimUser> usersOf(ClaimRef claim) {
    var users = new ArrayList<ClaimUser>();
    runs.forEach(
        (name, run) -> {
          if (run.claims().contains(claim) && run.mayRun()) {
            boolean stopping =
                tasks
                    .apply(name)
                    .filter(t -> t.metadata().uid().equals(run.uid()))
                    .map(t -> t.metadata().isDeleting())
                    .orElse(true);
            var state =
                stopping
                    ? "stopping"
                    : run.handle().state() instanceof TaskState.Running ? "running" : "starting";
            users.add(new ClaimUser(name, state));
          }
        });
    users.sort(Comparator.comparing(ClaimUser::task));
    return users;
  }

  /**
   * These claims' task let them go (its process ended, or it was deleted before one ran here): the
   * claim sync looks at each again.
   */
  void letGo(List<String> claimNames) {
    claimNames.forEach(recheckClaim);
  }

  /**
   * The run of the task called {@code task}, if a process was started for it and not yet forgotten.
   */
  Optional<TaskRun> run(String task) {
    return Optional.ofNullable(runs.get(task));
  }

  /** A process was started for {@code task}: from here on its claims are in use. */
  void started(String task, TaskRun run) {
    runs.put(task, run);
  }

  /**
   * {@code task}'s run is now {@code next} (the same process), unless it is no longer {@code run}.
   */
  void replace(String task, TaskRun run, TaskRun next) {
    runs.replace(task, run, next);
  }

  /** {@code task}'s run is over and reported: forgotten, unless another has replaced it. */
  void forget(String task, TaskRun run) {
    runs.remove(task, run);
  }

  /** Whether a process was started for {@code task} and not yet forgotten. */
  boolean hasRun(String task) {
    return runs.containsKey(task);
  }

  /**
   * The names of the tasks with a run here, in name order: callers requeue them one by one, and a
   * replayed run must requeue them in the same order ({@code Set.copyOf} iterates in an order
   * salted afresh by each JVM).
   */
  List<String> tasks() {
    return runs.keySet().stream().sorted().toList();
  }

  /** Every run here. */
  Collection<TaskRun> runs() {
    return runs.values();
  }
}
