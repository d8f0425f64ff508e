package dev.quartermaster.bench;

import java.lang.management.ManagementFactory;

/** CPU time this process has used (all threads, user and system), for "CPU per decision" figures. */
final class CpuTime {
  private CpuTime() {}

  /** Nanoseconds of CPU used by this JVM so far. */
  static long nanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  /**
   * Milliseconds the JIT's compiler threads have spent compiling so far (their elapsed time, so on
   * busy cores an upper bound on their CPU): how much of a round was the JVM still warming up.
   */
  static long jitMillis() {
    return ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
  }

  /** "JIT 310 ms (12 % of the CPU)": the compile time between two readings beside the CPU between them. */
  static String jitShare(long jitMillisBefore, long cpuNanosBefore) {
    long jit = jitMillis() - jitMillisBefore;
    long cpu = nanos() - cpuNanosBefore;
    return String.format("JIT %d ms (%.0f %% of the CPU)", jit, cpu <= 0 ? 0 : 100.0 * jit * 1e6 / cpu);
  }
}
