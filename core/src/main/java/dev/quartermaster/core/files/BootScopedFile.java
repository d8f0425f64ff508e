package dev.quartermaster.core.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Replaces a small file whose content means nothing after a reboot (a CDI spec names devices of
 * this boot's claims; a run record names a process of this boot), so that anyone reading it sees
 * the old content or the new, never a mix: written to a sibling temp file (owner-only from
 * creation) and renamed over the target. Nothing is fsynced. An agent that crashes keeps what the
 * kernel holds, so a renamed file is there whole for its successor; only a power loss can lose it,
 * and that reboots the node, after which the agent drops every claim and process of the earlier
 * boot and removes their files. Fsyncing would make each write wait for the disk (twice: the file,
 * then the directory) for nothing. What must survive a power loss goes through {@link DurableFile}.
 */
public final class BootScopedFile {
  private BootScopedFile() {}

  /**
   * Writes {@code bytes} to {@code temp} (in {@code target}'s directory) and renames it over {@code
   * target}.
   */
  public static void replace(Path target, Path temp, byte[] bytes) throws IOException {
    TempFile.write(temp, bytes, false);
    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }
}
