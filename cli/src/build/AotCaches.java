import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Makes the client's ahead-of-time caches (JEP 483/514/515) beside the jar, when the jar is built:
 * {@code java AotCaches.java JAR EXAMPLES CLIENT_JVM_OPTIONS}. A cache's classes are all loaded when a process starts
 * with it, used or not, so there are two, each trained by one command against a {@code qm server}
 * of its own (an ephemeral port, a temporary data and config directory):
 *
 * <ul>
 *   <li>{@code qm-get.aot}: {@code get nodes}, a table listing, which runs without the command tree;
 *   <li>{@code qm-cli.aot}: {@code describe node}, which loads most of what other client commands
 *       load (the command tree, the object model, Jackson, a table).
 * </ul>
 *
 * <p>The JVM options are the launcher's, read from the same file ({@code cli/src/main/launcher/client.jvm}): a cache is
 * used only by a JVM started as it was made. Nothing here may fail the build: a cache that could not
 * be made is named on stderr, and {@code ./qm} runs the command without it, only slower.
 */
public final class AotCaches {
  private static final long SERVER_START_SECONDS = 120;
  private static final long COMMAND_SECONDS = 300;
  private static final String MAIN = "dev.quartermaster.cli.Main";
  private static final String TRAINING = "dev.quartermaster.cli.AotTraining";
  private static final String NODE = "gpu-node-1"; // docs/api-samples/node.yaml

  public static void main(String[] args) throws Exception {
    var jar = Path.of(args[0]).toAbsolutePath();
    var examples = Path.of(args[1]).toAbsolutePath();
    var target = jar.getParent();
    var java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    var clientOptions = "@" + Path.of(args[2]).toAbsolutePath();
    var work = target.resolve("aot-training");
    deleteTree(work);
    Files.createDirectories(work);
    var caches = List.of(target.resolve("qm-get.aot"), target.resolve("qm-cli.aot"));
    for (var cache : caches) {
      Files.deleteIfExists(cache); // an older jar's cache must not outlive it
    }
    var env = new Training(java, clientOptions, jar, work);
    Process server = null;
    Process tlsServer = null;
    try {
      server = env.start("server", "--listen", "127.0.0.1:0", "--data", work.resolve("data").toString());
      var plain = awaitListening(server);
      var node = examples.resolveSibling("docs").resolve("api-samples").resolve("node.yaml");
      env.run(List.of(), "apply", "-f", examples.resolve("deviceclass.yaml").toString());
      env.run(List.of(), "apply", "-f", node.toString());
      // And one over HTTPS, which a fleet's commands take: the handshake's classes are cached too.
      tlsServer = env.start("server", "--listen", "127.0.0.1:0", "--tls", "--data",
          work.resolve("data-tls").toString());
      var tls = awaitListening(tlsServer);
      env.run(List.of(), "apply", "-f", examples.resolve("deviceclass.yaml").toString());
      env.run(List.of(), "apply", "-f", node.toString());
      var connections = List.of(
          plain + "|" + work.resolve("data/admin.token") + "|",
          tls + "|" + work.resolve("data-tls/admin.token") + "|"
              + work.resolve("data-tls/tls/ca.crt"));
      // The listing first through the config file the servers wrote, as a user's commands find
      // it (its reading is in the cache too), then against each server
      // (cli/.../AotTraining.java).
      var listing = new ArrayList<>(List.of("listing", examples.toString(), NODE));
      listing.addAll(connections);
      env.runMain(List.of("-XX:AOTCacheOutput=" + caches.get(0)), TRAINING,
          listing.toArray(String[]::new));
      // Every kind of client command in one JVM: its cache holds the classes of each, not only of
      // the one a single command would load.
      var commands = new ArrayList<>(List.of("commands", examples.toString(), NODE));
      commands.addAll(connections);
      env.runMain(List.of("-XX:AOTCacheOutput=" + caches.get(1)), TRAINING,
          commands.toArray(String[]::new));
    } catch (IOException | IllegalStateException e) {
      System.err.println("qm: no ahead-of-time cache for client commands (" + e.getMessage()
          + "); they run without one, only slower. The training's files are in " + work);
      return;
    } finally {
      for (var p : Arrays.asList(server, tlsServer)) {
        if (p != null) {
          p.destroy();
          p.waitFor(30, TimeUnit.SECONDS);
          p.destroyForcibly();
        }
      }
    }
    for (var cache : caches) {
      System.err.println("qm: made " + cache + (Files.exists(cache) ? "" : " (not: see " + work + ")"));
    }
    deleteTree(work);
  }

  /** Processes of the jar, with their own config directory, so the user's is never touched. */
  private record Training(String java, String clientOptions, Path jar, Path work) {
    Process start(String... command) throws IOException {
      var line = new ArrayList<>(List.of(java, "-cp", jar.toString(), MAIN));
      line.addAll(List.of(command));
      return builder(line).redirectErrorStream(true).start();
    }

    void run(List<String> jvmOptions, String... command) throws IOException, InterruptedException {
      runMain(jvmOptions, MAIN, command);
    }

    void runMain(List<String> jvmOptions, String main, String... command)
        throws IOException, InterruptedException {
      var line = new ArrayList<>(List.of(java, clientOptions));
      line.addAll(jvmOptions);
      line.addAll(List.of("-cp", jar.toString(), main));
      line.addAll(List.of(command));
      var log = work.resolve("client.log");
      var process = builder(line).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
      if (!process.waitFor(COMMAND_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException("qm " + String.join(" ", command) + " did not end");
      }
      if (process.exitValue() != 0) {
        throw new IllegalStateException("qm " + String.join(" ", command) + " exited "
            + process.exitValue() + ", see " + log);
      }
    }

    private ProcessBuilder builder(List<String> line) {
      var builder = new ProcessBuilder(line).directory(work.toFile());
      builder.environment().put("XDG_CONFIG_HOME", work.resolve("config").toString());
      builder.environment().remove("QM_SERVER");
      builder.environment().remove("QM_TOKEN_FILE");
      builder.environment().remove("QM_CA_FILE");
      return builder;
    }
  }

  /** Waits for the {@code API} line of the server's banner: it listens, and wrote the config file. */
  private static String awaitListening(Process server) throws Exception {
    var reader = new BufferedReader(
        new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
    var found = CompletableFuture.supplyAsync(() -> {
      try {
        for (String line; (line = reader.readLine()) != null; ) {
          var words = line.strip().split("\\s+");
          if (words.length == 2 && words[0].equals("API")) {
            return words[1];
          }
        }
        throw new IllegalStateException("the training server ended before it listened");
      } catch (IOException e) {
        throw new IllegalStateException("the training server's output: " + e.getMessage());
      }
    });
    try {
      var url = found.get(SERVER_START_SECONDS, TimeUnit.SECONDS);
      Thread.ofVirtual().start(() -> { // its pipe never fills
        try {
          reader.lines().forEach(line -> {});
        } catch (java.io.UncheckedIOException stopped) {
          // the training server was stopped: nothing more to read
        }
      });
      return url;
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("the training server did not listen within "
          + SERVER_START_SECONDS + " s");
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException(e.getCause().getMessage());
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (Files.exists(dir)) {
      try (Stream<Path> paths = Files.walk(dir)) {
        for (var p : paths.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }
}
