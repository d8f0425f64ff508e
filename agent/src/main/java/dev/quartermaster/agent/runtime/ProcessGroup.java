package dev.quartermaster.agent.runtime;

import dev.quartermaster.core.env.OutsideEnv;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.time.Duration;
import java.util.Optional;

/**
 * A task's process group: the session {@link OwnSession} starts it in, whose id is its process's
 * pid. Signals go to the whole group at once (libc's {@code kill(-pgid, sig)}), so a child forked
 * while its siblings are being signalled is not missed, as it was when each process found under the
 * task was signalled in turn (the partitions harness saw a task's {@code sleep} outlive its shell
 * with the task's GPU in its environment, after the agent had let the claim go). And a task is over
 * only when its group is empty: when its first process ends, what it left behind is killed, as a
 * container's processes die with its first one.
 */
@OutsideEnv("signals and the wait for a process group to empty are I/O at the edge")
public final class ProcessGroup {
  static final int SIGKILL = 9;
  static final int SIGTERM = 15;
  private static final long POLL_MILLIS = 20;

  private static final Optional<MethodHandle> KILL = bind();

  /** Where a task's end waits for its group to empty: not the JDK's process reaper thread. */
  static final java.util.concurrent.Executor WAITS =
      runnable -> Thread.ofVirtual().name("task-group-wait").start(runnable);

  private final long id;

  private ProcessGroup(long id) {
    this.id = id;
  }

  /**
   * The group {@code leader} leads, when the task was started in a session of its own and libc's
   * {@code kill} can be called here; else empty (the caller signals the process tree).
   */
  static Optional<ProcessGroup> ledBy(ProcessHandle leader, boolean ownSession) {
    return ownSession && KILL.isPresent()
        ? Optional.of(new ProcessGroup(leader.pid()))
        : Optional.empty();
  }

  long id() {
    return id;
  }

  /** Sends {@code signal} to every process of the group; false when none is left. */
  boolean signal(int signal) {
    try {
      return (int) KILL.orElseThrow().invokeExact((int) -id, signal) == 0;
    } catch (Throwable e) {
      throw new IllegalStateException("kill(-" + id + ", " + signal + ") failed: " + e, e);
    }
  }

  /**
   * Whether any process of the group lives. A zombie does not: an orphan is reaped by whoever
   * adopted it (init, or a container's first process that may reap late or never), and it holds
   * nothing.
   */
  boolean alive() {
    if (!signal(0)) {
      return false; // none at all, not even a zombie
    }
    try (var processes = java.nio.file.Files.list(java.nio.file.Path.of("/proc"))) {
      return processes.anyMatch(this::livingMember);
    } catch (java.io.IOException e) {
      return true; // cannot tell: the signal said some process is there
    }
  }

  private boolean livingMember(java.nio.file.Path proc) {
    var name = proc.getFileName().toString();
    if (name.isEmpty() || !Character.isDigit(name.charAt(0))) {
      return false;
    }
    try {
      var stat = java.nio.file.Files.readString(proc.resolve("stat"));
      // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so after the last
      // ')'.
      var fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(fields[2]) == id && !fields[0].equals("Z") && !fields[0].equals("X");
    } catch (java.io.IOException | RuntimeException e) {
      return false; // ended while read
    }
  }

  /**
   * Kills what is left of the group and waits until none of it lives, at most {@code bound};
   * returns whether it emptied.
   */
  boolean killAndAwaitEmpty(Duration bound) {
    long deadline = System.nanoTime() + bound.toNanos();
    while (signal(SIGKILL) && alive()) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      try {
        Thread.sleep(POLL_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return !alive();
      }
    }
    return true;
  }

  private static Optional<MethodHandle> bind() {
    try {
      var linker = Linker.nativeLinker();
      return linker
          .defaultLookup()
          .find("kill")
          .map(
              address ->
                  linker.downcallHandle(
                      address,
                      FunctionDescriptor.of(
                          ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT)));
    } catch (RuntimeException | LinkageError e) {
      return Optional.empty(); // no native access here: the process tree is signalled instead
    }
  }
}
