package dev.quartermaster.agent.cdi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quartermaster.api.codec.PooledJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * Resolves fully qualified CDI names against the JSON specs in a list of directories, the way a
 * CDI runtime does, so that a runtime knows which device nodes a task was given (and, for exec,
 * which environment to apply). A later directory wins a name conflict (as {@code /var/run/cdi}
 * beats {@code /etc/cdi}); a spec's own {@code containerEdits} apply once when any of its devices
 * is asked for, before the device's edits. Only {@code .json} specs are read (the agent writes
 * JSON); YAML specs are not.
 */
public final class CdiResolver {
  /** Where CDI runtimes look by default, lowest priority first. */
  public static final List<Path> DEFAULT_DIRS = List.of(Path.of("/etc/cdi"), Path.of("/var/run/cdi"));

  private static final ObjectMapper JSON = PooledJson.mapper();

  private final List<Path> dirs;

  public CdiResolver(List<Path> dirs) {
    this.dirs = List.copyOf(dirs);
  }

  public List<Path> dirs() {
    return dirs;
  }

  /** Thrown when a name is malformed or no spec in {@link #dirs()} defines it. */
  public static final class UnresolvableException extends Exception {
    public UnresolvableException(String message) {
      super(message);
    }
  }

  private record Found(Path file, JsonNode spec, JsonNode device) {}

  public ContainerEdits resolve(List<String> qualifiedNames) throws UnresolvableException {
    if (qualifiedNames.isEmpty()) {
      return new ContainerEdits(List.of(), List.of());
    }
    var index = new HashMap<String, Found>();
    var problems = new ArrayList<String>();
    for (var dir : dirs) {
      index(dir, index, problems);
    }
    var env = new ArrayList<String>();
    var nodes = new ArrayList<CdiDeviceNode>();
    var specsApplied = new LinkedHashSet<Path>();
    for (var name : qualifiedNames) {
      var found = index.get(name);
      if (found == null) {
        throw new UnresolvableException("unresolvable CDI device " + name + ": no spec in " + dirs + " defines it"
            + (problems.isEmpty() ? "" : " (skipped: " + String.join("; ", problems) + ")"));
      }
      try {
        if (specsApplied.add(found.file())) {
          apply(found.spec().path("containerEdits"), env, nodes);
        }
        apply(found.device().path("containerEdits"), env, nodes);
      } catch (IllegalArgumentException e) {
        throw new UnresolvableException("CDI spec " + found.file() + ", device " + name + ": " + e.getMessage());
      }
    }
    return new ContainerEdits(env, nodes);
  }

  private static void index(Path dir, Map<String, Found> index, List<String> problems) {
    if (!Files.isDirectory(dir)) {
      return;
    }
    List<Path> files;
    try (var list = Files.list(dir)) {
      files = list.filter(f -> f.getFileName().toString().endsWith(".json")).sorted().toList();
    } catch (IOException e) {
      problems.add("cannot list " + dir + ": " + e.getMessage());
      return;
    }
    for (var file : files) {
      try {
        var spec = JSON.readTree(file.toFile());
        var kind = spec.path("kind").asText("");
        for (var device : spec.path("devices")) {
          var name = device.path("name").asText("");
          if (!kind.isEmpty() && !name.isEmpty()) {
            index.put(kind + "=" + name, new Found(file, spec, device));
          }
        }
      } catch (IOException e) {
        problems.add(file + ": " + e.getMessage());
      }
    }
  }

  private static void apply(JsonNode edits, List<String> env, List<CdiDeviceNode> nodes) {
    for (var e : edits.path("env")) {
      env.add(e.asText());
    }
    for (var n : edits.path("deviceNodes")) {
      var path = n.path("path").asText("");
      if (path.isEmpty()) {
        throw new IllegalArgumentException("a deviceNodes entry has no path");
      }
      nodes.add(new CdiDeviceNode(path, n.path("hostPath").asText(path), n.path("type").asText(""),
          n.path("major").asLong(0), n.path("minor").asLong(0), n.path("permissions").asText("rwm")));
    }
  }
}
