package dev.quartermaster.cli;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Prometheus's own {@code promtool check metrics}, run on a scrape: the real parser and linter, not
 * our reading of the format. Missing locally, a test skips saying how to install it; under {@code
 * CI=true} a missing promtool fails, since CI ({@code .ci/run}) installs it.
 */
final class Promtool {
  static final String HOW_TO_INSTALL =
      "no promtool here: apt-get install -y prometheus (Debian's package has /usr/bin/promtool)";

  /** What {@code promtool check metrics} said: its exit code and everything it printed. */
  record Verdict(int exit, String output) {}

  private Promtool() {}

  /** The promtool on PATH; skips the test without one, or fails it under CI. */
  static Path require() {
    var found = find();
    if (found.isEmpty() && "true".equals(System.getenv("CI"))) {
      throw new AssertionError(
          "CI=true and no promtool: .ci/run must install it (" + HOW_TO_INSTALL + ")");
    }
    assumeTrue(found.isPresent(), HOW_TO_INSTALL);
    return found.get();
  }

  static Optional<Path> find() {
    var path = Optional.ofNullable(System.getenv("PATH")).orElse("/usr/bin");
    return Stream.of(path.split(":"))
        .filter(d -> !d.isEmpty())
        .map(d -> Path.of(d, "promtool"))
        .filter(Files::isExecutable)
        .findFirst();
  }

  /** Runs {@code promtool check metrics} with {@code scrape} on its stdin. */
  static Verdict check(Path promtool, String scrape) throws IOException, InterruptedException {
    var process =
        new ProcessBuilder(promtool.toString(), "check", "metrics")
            .redirectErrorStream(true)
            .start();
    try (var in = process.getOutputStream()) {
      in.write(scrape.getBytes(StandardCharsets.UTF_8));
    }
    var output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("promtool did not finish within 60 s");
    }
    return new Verdict(process.exitValue(), output);
  }
}
