package dev.quartermaster.cli.config;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import dev.quartermaster.cli.CliException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The client configuration file: several clusters by name, and the current one (as kubeconfig's
 * contexts). {@code qm server} and {@code qm up} each add or refresh their own cluster, named after
 * its address, and make it current, so starting one never loses another's entry. A file in the
 * older one-cluster form ({@code server}, {@code tokenFile} at the top) reads as cluster {@code
 * default}. Unknown fields are ignored, so an older {@code qm} can read what a newer wrote.
 *
 * @param current the cluster plain {@code qm} commands use
 * @param clusters by name
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ConfigFile(
    Optional<String> current,
    Map<String, UserConfig> clusters,
    Optional<String> server,
    Optional<String> tokenFile,
    Optional<String> caFile) {
  static final String LEGACY = "default";

  /** Built on first use, not with this class: a client command only reads the file. */
  private static final class Yaml {
    static final YAMLMapper MAPPER =
        YAMLMapper.builder(
                YAMLFactory.builder().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER).build())
            .addModule(new Jdk8Module())
            .defaultPropertyInclusion(
                JsonInclude.Value.construct(
                    JsonInclude.Include.NON_ABSENT, JsonInclude.Include.NON_ABSENT))
            .build();
  }

  public ConfigFile {
    current = current == null ? Optional.empty() : current.filter(s -> !s.isBlank());
    // Sorted by name, so a listing (and the file) reads the same every time.
    clusters =
        clusters == null
            ? Map.of()
            : java.util.Collections.unmodifiableSortedMap(new TreeMap<>(clusters));
    server = server == null ? Optional.empty() : server.filter(s -> !s.isBlank());
    tokenFile = tokenFile == null ? Optional.empty() : tokenFile.filter(s -> !s.isBlank());
    caFile = caFile == null ? Optional.empty() : caFile.filter(s -> !s.isBlank());
    if (clusters.isEmpty() && (server.isPresent() || tokenFile.isPresent())) {
      // The one-cluster form, as qm wrote it before clusters had names.
      clusters = Map.of(LEGACY, new UserConfig(server, tokenFile, caFile));
      current = current.or(() -> Optional.of(LEGACY));
      server = Optional.empty();
      tokenFile = Optional.empty();
      caFile = Optional.empty();
    }
  }

  public static final ConfigFile EMPTY =
      new ConfigFile(
          Optional.empty(), Map.of(), Optional.empty(), Optional.empty(), Optional.empty());

  /**
   * The file's content; empty when there is none. A file that does not parse is an error naming it
   * ({@link ConfigText}, the one reader: Jackson only writes the file).
   */
  public static Optional<ConfigFile> read(Path file) {
    try {
      return Optional.of(ConfigText.parse(Files.readString(file), file));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new CliException("cannot read config file " + file + ": " + e.getMessage());
    }
  }

  /**
   * The cluster called {@code name}, or the current one; a name the file lacks is an error listing
   * those it has.
   */
  public Optional<UserConfig> cluster(Optional<String> name, Path file) {
    if (name.isPresent()) {
      return Optional.of(
          Optional.ofNullable(clusters.get(name.get()))
              .orElseThrow(
                  () ->
                      new CliException(
                          "no cluster '"
                              + name.get()
                              + "' in "
                              + file
                              + "; it has "
                              + (clusters.isEmpty() ? "none" : clusters.keySet()))));
    }
    return current.map(clusters::get);
  }

  /**
   * This file with {@code entry} as cluster {@code name} (replacing one of that name), made
   * current.
   */
  public ConfigFile with(String name, UserConfig entry) {
    var next = new TreeMap<>(clusters);
    next.put(name, entry);
    return new ConfigFile(
        Optional.of(name), next, Optional.empty(), Optional.empty(), Optional.empty());
  }

  /**
   * This file without cluster {@code name} (it must exist); when it was current, no cluster is
   * current after it, and plain commands say so rather than pick another.
   */
  public ConfigFile without(String name, Path file) {
    cluster(Optional.of(name), file);
    var next = new TreeMap<>(clusters);
    next.remove(name);
    return new ConfigFile(
        current.filter(c -> !c.equals(name)),
        next,
        Optional.empty(),
        Optional.empty(),
        Optional.empty());
  }

  /** This file with cluster {@code name} current; it must exist. */
  public ConfigFile use(String name, Path file) {
    cluster(Optional.of(name), file);
    return new ConfigFile(
        Optional.of(name), clusters, Optional.empty(), Optional.empty(), Optional.empty());
  }

  /**
   * Reads the file, changes it and writes it back while holding {@code <file>.lock}, so two servers
   * started at once on one machine both end up in it (neither overwrites the other's entry).
   */
  public static void update(Path file, java.util.function.UnaryOperator<ConfigFile> change) {
    try {
      Files.createDirectories(file.getParent());
      try (var lock =
              java.nio.channels.FileChannel.open(
                  file.resolveSibling(file.getFileName() + ".lock"),
                  java.nio.file.StandardOpenOption.CREATE,
                  java.nio.file.StandardOpenOption.WRITE);
          var held = lock.lock()) {
        change.apply(read(file).orElse(EMPTY)).write(file);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot update config file " + file + ": " + e.getMessage(), e);
    }
  }

  /** Writes the file atomically (temp file, then rename), so a reader never sees half of it. */
  public void write(Path file) {
    try {
      Files.createDirectories(file.getParent());
      var temp = Files.createTempFile(file.getParent(), file.getFileName() + ".", ".tmp");
      Files.writeString(
          temp,
          "# Written by qm server, qm up and qm config; read by qm when no --server/--token-file is given.\n"
              + Yaml.MAPPER.writeValueAsString(this));
      Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write config file " + file + ": " + e.getMessage(), e);
    }
  }
}
