package dev.quartermaster.agent.host;

import dev.quartermaster.csi.plugin.CsiPlugin;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * The plugin directory of a real node: every {@code *.sock} in it is a plugin endpoint ({@code
 * unix://<absolute path>}), connected through {@code connect} (the gRPC client, wired by the
 * command line; this module does not depend on gRPC). A missing directory is a node without
 * plugins.
 */
public final class OsCsiEndpoints implements CsiEndpoints {
  private final Path dir;
  private final Function<String, CsiPlugin> connect;

  public OsCsiEndpoints(Path dir, Function<String, CsiPlugin> connect) {
    this.dir = Objects.requireNonNull(dir, "dir").toAbsolutePath();
    this.connect = Objects.requireNonNull(connect, "connect");
  }

  @Override
  public List<String> list() throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (var files = Files.list(dir)) {
      return files
          .filter(p -> p.getFileName().toString().endsWith(".sock"))
          .map(p -> "unix://" + p.toAbsolutePath())
          .sorted()
          .toList();
    }
  }

  @Override
  public CsiPlugin connect(String endpoint) {
    return connect.apply(endpoint);
  }
}
