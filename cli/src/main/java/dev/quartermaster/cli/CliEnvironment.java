package dev.quartermaster.cli;

import dev.quartermaster.cli.config.ApiConnector;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;

/**
 * What the CLI takes from the process it runs in: environment variables, the working and home
 * directories, standard input ({@code apply -f -}), the clock, and how to reach a server. {@link
 * Main} builds it from the real process; tests build their own, so no test depends on the user's
 * environment, home or wall clock.
 */
public record CliEnvironment(
    Map<String, String> variables,
    Path workingDir,
    Path home,
    InputStream stdin,
    Clock clock,
    ApiConnector connector) {

  public CliEnvironment {
    variables = Map.copyOf(variables);
    workingDir = workingDir.toAbsolutePath().normalize();
    home = home.toAbsolutePath().normalize();
  }

  /** The environment of this JVM process, connecting over HTTP. */
  public static CliEnvironment ofProcess() {
    return new CliEnvironment(
        System.getenv(),
        Path.of(""),
        Path.of(System.getProperty("user.home")),
        System.in,
        Clock.systemUTC(),
        ApiConnector.http());
  }

  /** The variable's value, if it is set and not blank (an empty {@code QM_SERVER=} means unset). */
  public Optional<String> variable(String name) {
    return Optional.ofNullable(variables.get(name)).filter(v -> !v.isBlank());
  }

  /**
   * {@code path} as the user meant it: {@code ~/} is the home directory, relative is from the
   * working directory.
   */
  public Path resolve(String path) {
    if (path.equals("~") || path.startsWith("~/")) {
      return home.resolve(path.substring(Math.min(2, path.length()))).normalize();
    }
    return workingDir.resolve(path).normalize();
  }

  public CliEnvironment withConnector(ApiConnector other) {
    return new CliEnvironment(variables, workingDir, home, stdin, clock, other);
  }
}
