package dev.quartermaster.agent.runtime;

import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/** The handle every runtime returns (the simulation's too); the runtime drives its state. */
public final class RuntimeTask implements TaskHandle {
  private final String name;
  private final Path output;
  private final CompletableFuture<DeviceCheck> check = new CompletableFuture<>();
  private final CompletableFuture<TaskResult> result = new CompletableFuture<>();
  private TaskState state = new TaskState.Starting();
  private Consumer<ProcessTree> killer = tree -> {};
  private Runnable terminator = () -> kill(ProcessTree.onDemand());
  private Optional<ProcessHandle> process = Optional.empty();
  private Optional<String> container = Optional.empty();

  public RuntimeTask(String name, Path output) {
    this.name = name;
    this.output = output;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public synchronized TaskState state() {
    return state;
  }

  @Override
  public Path output() {
    return output;
  }

  @Override
  public CompletableFuture<DeviceCheck> deviceCheck() {
    return check;
  }

  @Override
  public CompletableFuture<TaskResult> result() {
    return result;
  }

  @Override
  public void kill(ProcessTree tree) {
    Consumer<ProcessTree> k;
    synchronized (this) {
      if (state instanceof TaskState.Finished) {
        return;
      }
      k = killer;
    }
    k.accept(tree);
  }

  @Override
  public void terminate() {
    Runnable t;
    synchronized (this) {
      if (state instanceof TaskState.Finished) {
        return;
      }
      t = terminator;
    }
    t.run();
  }

  /** How the runtime asks it to stop (SIGTERM); unset, it is killed at once. */
  public synchronized void onTerminate(Runnable terminator) {
    this.terminator = terminator;
  }

  @Override
  public synchronized Optional<ProcessHandle> process() {
    return process;
  }

  public synchronized void started(ProcessHandle handle) {
    this.process = Optional.of(handle);
  }

  @Override
  public synchronized Optional<String> container() {
    return container;
  }

  /** The task runs in the container called {@code name}. */
  public synchronized void inContainer(String name) {
    this.container = Optional.of(name);
  }

  /** How the runtime kills it; the tree is for a runtime whose task is a local process tree. */
  public synchronized void onKill(Consumer<ProcessTree> killer) {
    this.killer = killer;
  }

  /** The device check passed: the task counts as running from here on. */
  public void running(DeviceCheck.Passed passed) {
    synchronized (this) {
      if (state instanceof TaskState.Finished) {
        return;
      }
      state = new TaskState.Running(passed);
    }
    check.complete(passed);
  }

  public void finish(TaskResult end) {
    synchronized (this) {
      if (state instanceof TaskState.Finished) {
        return;
      }
      state = new TaskState.Finished(end);
    }
    switch (end) {
      case TaskResult.DeviceCheckFailed f -> check.complete(f.check());
      case TaskResult.StartFailed s -> check.complete(new DeviceCheck.NotRun(s.reason()));
      case TaskResult.Exited e -> check.complete(e.check());
    }
    result.complete(end);
  }
}
