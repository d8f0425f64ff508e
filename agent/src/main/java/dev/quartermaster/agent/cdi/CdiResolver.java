package dev.quartermaster.agent.cdi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quartermaster.api.codec.PooledJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Resolves fully qualified CDI names against the JSON specs in a list of directories, the way a CDI
 * runtime does, so that a runtime knows which device nodes a task was given (and, for exec, which
 * environment to apply). A later directory wins a name conflict (as {@code /var/run/cdi} beats
 * {@code /etc/cdi}); a spec's own {@code containerEdits} apply once when any of its devices is
 * asked for, before the device's edits. Only {@code .json} specs are read (the agent writes JSON);
 * YAML specs are not.
 *
 * <p>Each resolve lists the directories afresh, but a spec file is parsed again only when it
 * changed: a parsed spec is kept with the file's identity (its inode, size and modification time).
 * The agent writes every spec under a temp name and renames it into place, so a rewritten spec has
 * another inode or (a recycled spare's) a new modification time. A node starts one task per claim
 * and holds up to a spec per GPU, so without this every start parsed every spec of the node.
 * Thread-safe: concurrent resolves share the kept specs.
 */
public final class CdiResolver {
  /** Where CDI runtimes look by default, lowest priority first. */
  public static final List<Path> DEFAULT_DIRS =
      List.of(Path.of("/etc/cdi"), Path.of("/var/run/cdi"));

  private static final ObjectMapper JSON = PooledJson.mapper();

  private final List<Path> dirs;

  /** Parsed specs by file, each with the identity of the file it was parsed from. */
  private final Map<Path, Parsed> parsed = new ConcurrentHashMap<>();

  private final LongAdder reads = new LongAdder();

  public CdiResolver(List<Path> dirs) {
    this.dirs = List.copyOf(dirs);
  }

  /**
   * A spec as parsed, and the identity of the file it came from; a file with another identity is
   * parsed again.
   */
  private record Parsed(FileIdentity identity, JsonNode spec) {}

  /**
   * What tells one file's content from another's without reading it: inode, size, modification
   * time.
   */
  private record FileIdentity(Object fileKey, long size, FileTime modified) {
    static FileIdentity of(BasicFileAttributes a) {
      return new FileIdentity(a.fileKey(), a.size(), a.lastModifiedTime());
    }
  }

  /** How many spec files were read and parsed so far (not answered from what was kept). */
  public long specsRead() {
    return reads.sum();
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
    var listed = new HashSet<Path>();
    for (var dir : dirs) {
      index(dir, index, problems, listed);
    }
    // Forget the specs whose files are gone (released claims'), so what is kept does not grow.
    parsed.keySet().retainAll(listed);
    var env = new ArrayList<String>();
    var nodes = new ArrayList<CdiDeviceNode>();
    var specsApplied = new LinkedHashSet<Path>();
    for (var name : qualifiedNames) {
      var found = index.get(name);
      if (found == null) {
        throw new UnresolvableException(
            "unresolvable CDI device "
                + name
                + ": no spec in "
                + dirs
                + " defines it"
                + (problems.isEmpty() ? "" : " (skipped: " + String.join("; ", problems) + ")"));
      }
      try {
        if (specsApplied.add(found.file())) {
          apply(found.spec().path("containerEdits"), env, nodes);
        }
        apply(found.device().path("containerEdits"), env, nodes);
      } catch (IllegalArgumentException e) {
        throw new UnresolvableException(
            "CDI spec " + found.file() + ", device " + name + ": " + e.getMessage());
      }
    }
    return new ContainerEdits(env, nodes);
  }

  private void index(Path dir, Map<String, Found> index, List<String> problems, Set<Path> listed) {
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
    listed.addAll(files);
    for (var file : files) {
      try {
        var spec = spec(file);
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

  /**
   * The file's spec: the one kept if the file is the one it was parsed from, else read and parsed
   * now.
   */
  private JsonNode spec(Path file) throws IOException {
    var identity = FileIdentity.of(Files.readAttributes(file, BasicFileAttributes.class));
    var kept = parsed.get(file);
    if (kept != null && kept.identity().equals(identity)) {
      return kept.spec();
    }
    var spec = JSON.readTree(file.toFile());
    reads.increment();
    // Kept under the identity read before the parse: a change during the parse shows as another
    // identity on the next resolve, which then parses again.
    parsed.put(file, new Parsed(identity, spec));
    return spec;
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
      nodes.add(
          new CdiDeviceNode(
              path,
              n.path("hostPath").asText(path),
              n.path("type").asText(""),
              n.path("major").asLong(0),
              n.path("minor").asLong(0),
              n.path("permissions").asText("rwm")));
    }
  }
}
