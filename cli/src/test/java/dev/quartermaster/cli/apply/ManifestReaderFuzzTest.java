package dev.quartermaster.cli.apply;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.cli.CliEnvironment;
import dev.quartermaster.cli.CliException;
import dev.quartermaster.cli.config.ApiConnector;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * {@code apply -f} on any bytes: the same manifests whether they come as a file, as standard input
 * or split over the files of a directory, or a {@link CliException} naming the source (a user
 * error, printed without a stack trace). Nothing else escapes: no NullPointerException, no
 * StackOverflowError on deep nesting, and nothing over {@link ManifestReader#MAX_BYTES} is parsed.
 *
 * <p>An input holding {@code \n#file\n} is split there into the files of a directory; an input
 * starting with byte 0xFF is repeated past the size limit, which must refuse it by name.
 */
class ManifestReaderFuzzTest {
  private static final byte[] SPLIT = "\n#file\n".getBytes(StandardCharsets.UTF_8);
  private static final Path DIR = tempDir();

  @FuzzTest
  void read(byte[] bytes) throws IOException {
    if (bytes.length > 0 && bytes[0] == (byte) 0xFF) {
      oversized(Arrays.copyOfRange(bytes, 1, bytes.length));
      return;
    }
    var text = new String(bytes, StandardCharsets.UTF_8);
    var expected = expected(text);

    Files.write(DIR.resolve("m.yaml"), bytes);
    check(() -> reader(new byte[0]).read(List.of("m.yaml")), "m.yaml", expected);
    check(() -> reader(bytes).read(List.of("-")), "<stdin>", expected);

    var parts = split(bytes);
    if (parts.size() > 1) {
      var sub = DIR.resolve("d");
      clear(sub);
      Files.createDirectories(sub);
      for (int i = 0; i < parts.size(); i++) {
        Files.write(sub.resolve(String.format("%03d.yml", i)), parts.get(i));
      }
      try {
        var read = reader(new byte[0]).read(List.of("d"));
        assertThat(read).allSatisfy(m -> assertThat(m.source()).matches("d/[0-9]{3}\\.yml"));
      } catch (CliException e) {
        assertThat(e.getMessage()).matches("(?s)d/[0-9]{3}\\.yml: document [0-9]+: .+");
      }
    }
  }

  /** What the codec makes of the text: the objects, or the message of its error. */
  private static Object expected(String text) {
    try {
      return ObjectCodec.fromYaml(text);
    } catch (ApiException e) {
      return e.getMessage();
    }
  }

  private static void check(
      java.util.function.Supplier<List<Manifest>> read, String source, Object expected) {
    try {
      var manifests = read.get();
      assertThat(expected).isInstanceOf(List.class);
      assertThat(manifests)
          .extracting(Manifest::object)
          .containsExactlyElementsOf(asObjects(expected));
      for (int i = 0; i < manifests.size(); i++) {
        assertThat(manifests.get(i).source()).isEqualTo(source);
        assertThat(manifests.get(i).index()).isEqualTo(i + 1);
        assertThat(manifests.get(i).where()).startsWith(source + " document " + (i + 1) + " (");
      }
    } catch (CliException e) {
      assertThat(e.getMessage()).isEqualTo(source + ": " + expected);
      assertThat(e.getMessage())
          .matches("(?s)" + java.util.regex.Pattern.quote(source) + ": document [0-9]+: .+");
    }
  }

  @SuppressWarnings("unchecked")
  private static List<ApiObject> asObjects(Object expected) {
    return (List<ApiObject>) expected;
  }

  private static void oversized(byte[] unit) throws IOException {
    var block = unit.length == 0 ? new byte[] {' '} : unit;
    var big = new byte[ManifestReader.MAX_BYTES + 1];
    for (int i = 0; i < big.length; i += block.length) {
      System.arraycopy(block, 0, big, i, Math.min(block.length, big.length - i));
    }
    Files.write(DIR.resolve("big.yaml"), big);
    for (var argument : List.of("big.yaml", "-")) {
      try {
        reader(big).read(List.of(argument));
        throw new AssertionError("read " + big.length + " bytes from " + argument);
      } catch (CliException e) {
        assertThat(e.getMessage())
            .endsWith(
                " is larger than 4 MiB; split it into several files"
                    + " (the server takes at most 1 MiB per object)");
      }
    }
  }

  private static List<byte[]> split(byte[] bytes) {
    var parts = new ArrayList<byte[]>();
    int from = 0;
    for (int i = 0; i + SPLIT.length <= bytes.length; i++) {
      if (Arrays.equals(bytes, i, i + SPLIT.length, SPLIT, 0, SPLIT.length)) {
        parts.add(Arrays.copyOfRange(bytes, from, i));
        from = i + SPLIT.length;
        i = from - 1;
      }
    }
    parts.add(Arrays.copyOfRange(bytes, from, bytes.length));
    return parts;
  }

  private static ManifestReader reader(byte[] stdin) {
    return new ManifestReader(
        new CliEnvironment(
            Map.of(),
            DIR,
            DIR.resolve("home"),
            new ByteArrayInputStream(stdin),
            Clock.systemUTC(),
            ApiConnector.http()));
  }

  private static void clear(Path dir) throws IOException {
    if (Files.exists(dir)) {
      try (var all = Files.walk(dir)) {
        all.sorted(Comparator.reverseOrder())
            .forEach(
                p -> {
                  try {
                    Files.delete(p);
                  } catch (IOException e) {
                    throw new UncheckedIOException(e);
                  }
                });
      }
    }
  }

  private static Path tempDir() {
    try {
      var dir = Files.createTempDirectory("qm-manifest-fuzz");
      dir.toFile().deleteOnExit();
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
