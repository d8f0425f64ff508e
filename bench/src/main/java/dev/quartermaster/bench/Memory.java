package dev.quartermaster.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The process's memory as the operating system and the JVM see it. */
final class Memory {
  private Memory() {}

  /** Resident set size from /proc/self/status, in MiB (-1 where there is no /proc). */
  static long residentMiB() {
    try {
      for (var line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024;
        }
      }
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
    return -1;
  }

  /** Heap in use after a full collection, in MiB. */
  static long heapAfterGcMiB() {
    var rt = Runtime.getRuntime();
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return (rt.totalMemory() - rt.freeMemory()) / (1024 * 1024);
  }
}
