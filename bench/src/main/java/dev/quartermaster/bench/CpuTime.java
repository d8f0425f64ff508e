package dev.quartermaster.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * CPU time this process has used (all threads, user and system), for "CPU per decision" figures.
 */
final class CpuTime {
  private static final Path STAT = Path.of("/proc/self/stat");

  /** Linux reports thread times in clock ticks of 1/100 s on every architecture we run on. */
  private static final long NANOS_PER_TICK = 10_000_000L;

  private static final Path TASKS = Path.of("/proc/self/task");

  private CpuTime() {}

  /** Nanoseconds of CPU used by this JVM so far. */
  static long nanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /**
   * Nanoseconds of CPU used by the calling thread so far: for one decision's cost, no one else's.
   */
  static long threadNanos() {
    return ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
  }

  /** Nanoseconds of CPU used by this process's children that it has waited for: cutime + cstime. */
  static long childrenNanos() throws IOException {
    var line = Files.readString(STAT);
    var fields = line.substring(line.lastIndexOf(')') + 2).split(" ");
    // After the name: state(0) ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt
    // utime(11) stime cutime(13) cstime(14)
    return (Long.parseLong(fields[13]) + Long.parseLong(fields[14])) * NANOS_PER_TICK;
  }

  /** Nanoseconds of CPU used so far by process {@code pid} (utime + stime); 0 once it is gone. */
  static long processNanos(long pid) {
    try {
      var line = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      var fields = line.substring(line.lastIndexOf(')') + 2).split(" ");
      return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * NANOS_PER_TICK;
    } catch (IOException e) {
      return 0;
    }
  }

  /**
   * Milliseconds of CPU the JIT's compiler threads have used so far: how much of a round was the
   * JVM still warming up. Read from each thread's {@code /proc} times, as the JVM's own figure
   * ({@code CompilationMXBean}) is the compilers' elapsed time, which on two busy cores counted the
   * time they waited for a core too and came out at twice their CPU or more. Where there is no
   * {@code /proc}, that elapsed time stands in. The bench's JVM keeps its compiler threads for its
   * whole life ({@code -XX:-UseDynamicNumberOfCompilerThreads}), so none takes its time away with
   * it.
   */
  static long jitMillis() {
    if (!Files.isDirectory(TASKS)) {
      return ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
    }
    long ticks = 0;
    try (Stream<Path> threads = Files.list(TASKS)) {
      for (var thread : threads.toList()) {
        ticks += compilerTicks(thread.resolve("stat"));
      }
    } catch (IOException e) {
      return ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
    }
    return ticks * NANOS_PER_TICK / 1_000_000;
  }

  /** utime + stime of a compiler thread ("C1 CompilerThre", "C2 CompilerThre"); 0 for any other. */
  private static long compilerTicks(Path stat) {
    String line;
    try {
      line = Files.readString(stat);
    } catch (IOException e) {
      return 0; // the thread ended meanwhile
    }
    int open = line.indexOf('(');
    int close = line.lastIndexOf(')');
    if (open < 0 || close < open || !line.substring(open + 1, close).contains("CompilerThre")) {
      return 0;
    }
    // After the name: state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt
    // utime stime
    var fields = line.substring(close + 2).split(" ");
    return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
  }

  /** The compilers' CPU since two readings, and its share (0 to 1) of the process's. */
  record Jit(long millis, double share) {
    @Override
    public String toString() {
      return String.format("JIT %d ms (%.0f %% of the CPU)", millis, 100 * share);
    }
  }

  /** The JIT's CPU since {@link #jitMillis} and {@link #nanos} read these, read once. */
  static Jit jitSince(long jitMillisBefore, long cpuNanosBefore) {
    long jit = jitMillis() - jitMillisBefore;
    long cpu = nanos() - cpuNanosBefore;
    return new Jit(jit, cpu <= 0 ? 0 : jit * 1e6 / cpu);
  }
}
