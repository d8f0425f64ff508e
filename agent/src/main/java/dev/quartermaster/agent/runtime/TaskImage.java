package dev.quartermaster.agent.runtime;

import java.nio.file.Path;
import java.util.Objects;

/** What a task's file system is: the host's (exec), an unpacked root directory, or an image. */
public sealed interface TaskImage {

  /** The host's own file system; only the exec runtime runs tasks this way. */
  record Host() implements TaskImage {}

  /** A directory holding a root file system ({@code podman run --rootfs DIR}). */
  record Rootfs(Path dir) implements TaskImage {
    public Rootfs {
      Objects.requireNonNull(dir, "dir");
    }
  }

  /** An image reference; it needs {@code /bin/sh} (the device check runs under it). */
  record Image(String reference) implements TaskImage {
    public Image {
      Objects.requireNonNull(reference, "reference");
      if (reference.isBlank() || reference.startsWith("-")) {
        throw new IllegalArgumentException(
            "image reference must be a name, not '" + reference + "'");
      }
    }
  }
}
