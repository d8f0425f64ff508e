package dev.quartermaster.cli;

import dev.quartermaster.cli.config.ApiConnector;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;

/** CLI environments for tests: nothing comes from the real process, home or clock. */
public final class TestEnvironments {
  public static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

  private TestEnvironments() {}

  public static CliEnvironment of(Map<String, String> variables, Path workingDir, Path home) {
    return new CliEnvironment(
        variables,
        workingDir,
        home,
        new ByteArrayInputStream(new byte[0]),
        Clock.fixed(NOW, ZoneOffset.UTC),
        noNetwork());
  }

  public static CliEnvironment withStdin(CliEnvironment env, String stdin) {
    return new CliEnvironment(
        env.variables(),
        env.workingDir(),
        env.home(),
        new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
        env.clock(),
        env.connector());
  }

  private static ApiConnector noNetwork() {
    return (server, token) -> {
      throw new AssertionError("this test must not connect to " + server);
    };
  }
}
