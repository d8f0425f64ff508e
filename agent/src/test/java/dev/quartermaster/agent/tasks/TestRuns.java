package dev.quartermaster.agent.tasks;

import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.agent.runtime.DeviceCheck;
import dev.quartermaster.agent.runtime.RuntimeTask;
import dev.quartermaster.agent.runtime.TaskResult;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Records task processes in a {@link ClaimUse} as the task sync does when it starts one, for tests
 * of the claim side (outside this package too). The process is a {@link RuntimeTask} the test
 * drives: {@link #pass} its device check, {@link #exit} it.
 */
public final class TestRuns {
  private TestRuns() {}

  /**
   * A process of task incarnation ({@code task}, {@code uid}) started with {@code claims}, before
   * its device check.
   */
  public static RuntimeTask start(ClaimUse use, String task, String uid, List<ClaimRef> claims) {
    var handle = new RuntimeTask(task, Path.of(task + ".log"));
    use.started(
        task,
        new TaskRun(uid, handle, List.copyOf(claims), Optional.empty(), Instant.EPOCH, "starting"));
    return handle;
  }

  /** Its device check passed: it runs. */
  public static void pass(RuntimeTask process) {
    process.running(new DeviceCheck.Passed(List.of()));
  }

  /** It exited (killed, say): gone. */
  public static void exit(RuntimeTask process) {
    process.finish(new TaskResult.Exited(137, new DeviceCheck.Passed(List.of())));
  }
}
