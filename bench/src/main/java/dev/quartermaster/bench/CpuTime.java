package dev.quartermaster.bench;

import java.lang.management.ManagementFactory;

/** CPU time this process has used (all threads, user and system), for "CPU per decision" figures. */
final class CpuTime {
  private CpuTime() {}

  /** Nanoseconds of CPU used by this JVM so far. */
  static long nanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }
}
