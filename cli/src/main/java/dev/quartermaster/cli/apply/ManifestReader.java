package dev.quartermaster.cli.apply;

import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.cli.CliEnvironment;
import dev.quartermaster.cli.CliException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Reads {@code apply -f} arguments: a file, a directory (each {@code *.yaml}, {@code *.yml} and
 * {@code *.json} directly in it, by name), or {@code -} for standard input. Every file is read and
 * decoded before anything is sent, so a typo in the last file stops the whole apply.
 */
public final class ManifestReader {
  private static final List<String> EXTENSIONS = List.of(".yaml", ".yml", ".json");
  public static final String STDIN = "-";

  /** The most a manifest file (or standard input) may hold. */
  public static final int MAX_BYTES = 4 << 20;

  private final CliEnvironment env;

  public ManifestReader(CliEnvironment env) {
    this.env = env;
  }

  public List<Manifest> read(List<String> arguments) {
    var out = new ArrayList<Manifest>();
    for (var argument : arguments) {
      if (argument.equals(STDIN)) {
        out.addAll(decode("<stdin>", readStdin()));
        continue;
      }
      var path = env.resolve(argument);
      if (Files.isDirectory(path)) {
        var files = manifestsIn(path, argument);
        if (files.isEmpty()) {
          throw new CliException("no manifests (*.yaml, *.yml, *.json) in directory " + argument);
        }
        for (var file : files) {
          out.addAll(
              decode(join(argument, file.getFileName().toString()), readFile(file, argument)));
        }
      } else if (Files.isRegularFile(path)) {
        out.addAll(decode(argument, readFile(path, argument)));
      } else {
        throw new CliException("no such file or directory: " + argument);
      }
    }
    return List.copyOf(out);
  }

  private static List<Path> manifestsIn(Path dir, String argument) {
    try (var entries = Files.list(dir)) {
      return entries
          .filter(Files::isRegularFile)
          .filter(
              p ->
                  EXTENSIONS.stream()
                      .anyMatch(
                          e -> p.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(e)))
          .sorted(Comparator.comparing(p -> p.getFileName().toString()))
          .toList();
    } catch (IOException e) {
      throw new CliException("cannot list directory " + argument + ": " + e.getMessage());
    }
  }

  private static List<Manifest> decode(String source, String text) {
    try {
      var objects = ObjectCodec.fromYaml(text);
      var out = new ArrayList<Manifest>();
      for (int i = 0; i < objects.size(); i++) {
        out.add(new Manifest(source, i + 1, objects.get(i)));
      }
      return out;
    } catch (ApiException e) {
      // The codec's message already names the document and the field; add the file.
      throw new CliException(source + ": " + e.getMessage());
    }
  }

  private static String readFile(Path file, String argument) {
    try (InputStream in = Files.newInputStream(file)) {
      return bounded(in, argument);
    } catch (IOException e) {
      throw new CliException("cannot read " + argument + ": " + e.getMessage());
    }
  }

  private String readStdin() {
    try (InputStream in = env.stdin()) {
      return bounded(in, "standard input");
    } catch (IOException e) {
      throw new CliException("cannot read standard input: " + e.getMessage());
    }
  }

  /**
   * At most {@link #MAX_BYTES}: the YAML parser's memory grows many times a document's size (a 1 MB
   * scalar took 592 MB; 30 MB never finished), and the server takes at most 1 MiB per object
   * anyway.
   */
  private static String bounded(InputStream in, String what) throws IOException {
    var bytes = in.readNBytes(MAX_BYTES + 1);
    if (bytes.length > MAX_BYTES) {
      throw new CliException(
          what
              + " is larger than "
              + (MAX_BYTES >> 20)
              + " MiB; split it into several files"
              + " (the server takes at most 1 MiB per object)");
    }
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private static String join(String dir, String file) {
    return dir.endsWith("/") ? dir + file : dir + "/" + file;
  }
}
