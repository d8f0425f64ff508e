package dev.quartermaster.csi.hostpath;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.quartermaster.api.codec.PooledJson;
import dev.quartermaster.core.files.DurableFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * One JSON state file, replaced atomically: written to a temporary file beside it, forced to disk,
 * renamed over the old one and the directory forced, so that a crash leaves either the old state or
 * the new one, never half of each.
 */
final class StateFile<T> {
  private static final ObjectMapper JSON =
      PooledJson.mapper().enable(SerializationFeature.INDENT_OUTPUT);

  private final Path file;
  private final Class<T> type;

  StateFile(Path file, Class<T> type) {
    this.file = file;
    this.type = type;
  }

  Path path() {
    return file;
  }

  /**
   * The stored state, or empty when there is no file yet; a file that does not parse is {@link
   * DamagedStateException}.
   */
  Optional<T> load() {
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    try {
      var value = JSON.readValue(file.toFile(), type);
      if (value == null) {
        throw new DamagedStateException(file, new IOException("empty document"));
      }
      return Optional.of(value);
    } catch (JacksonException e) {
      throw new DamagedStateException(file, e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  void save(T value) {
    try {
      // The plugin's state is the node's: owner-only, replaced whole (a crash leaves old or new).
      DurableFile.replace(file, JSON.writeValueAsBytes(value));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }
}
