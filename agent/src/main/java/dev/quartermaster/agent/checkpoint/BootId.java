package dev.quartermaster.agent.checkpoint;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The kernel's boot id: a new one means the machine rebooted and nothing prepared survived. */
public final class BootId {
  public static final Path PROC = Path.of("/proc/sys/kernel/random/boot_id");

  private BootId() {}

  /** Reads the boot id from {@code file} (normally {@link #PROC}). */
  public static String read(Path file) throws IOException {
    var id = Files.readString(file, StandardCharsets.US_ASCII).trim();
    if (id.isEmpty()) {
      throw new IOException("boot id file " + file + " is empty");
    }
    return id;
  }

  /** The running kernel's boot id. */
  public static String current() throws IOException {
    return read(PROC);
  }
}
