package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.cli.config.ApiConnector;
import dev.quartermaster.cli.config.ClientConfig;
import dev.quartermaster.cli.warm.WarmClient;
import dev.quartermaster.cli.warm.WarmCommands;
import dev.quartermaster.cli.warm.WarmRequest;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The warm client and the launcher's half of it (the real {@code warm.bash} in a real bash) against
 * a real server: a command run warm prints what the same command prints run as {@link Main} runs
 * it, with the caller's working directory and variables; the commands it must not take (a watch,
 * standard input, help) are left to a JVM of their own; nobody without the endpoint's secrets gets
 * a command run, or passes off output as a command's.
 */
class WarmClientTest {
  private static final Path WARM_BASH =
      ExamplesTest.REPO.resolve("cli/src/main/launcher/warm.bash");

  @TempDir Path dir;

  private CliServer cli;
  private WarmClient warm;
  private Path endpoint;
  private Path jar;

  @BeforeEach
  void start() throws Exception {
    cli = CliServer.start(dir);
    endpoint = dir.resolve("warm.endpoint");
    jar = Files.writeString(dir.resolve("qm.jar"), "a jar");
    warm = WarmClient.start(endpoint, Optional.of(jar), ApiConnector.http(), Duration.ofMinutes(5));
    Thread.ofVirtual().start(warm::serve);
  }

  @AfterEach
  void stop() throws Exception {
    warm.close();
    warm.awaitCommands();
    cli.close();
  }

  /** What the launcher's {@code qm_warm_run} did: its status, the command's exit and output. */
  record Launch(int status, String exit, String out, String err) {}

  private Launch launch(Path workingDir, String... args) throws Exception {
    var statusFile = dir.resolve("status");
    var command =
        new ArrayList<>(
            List.of(
                "bash",
                "-c",
                "set -euo pipefail; source \"$1\"; status=\"$2\"; ep=\"$3\"; shift 3;"
                    + " rc=0; qm_warm_run \"$ep\" \"$@\" || rc=$?;"
                    + " echo \"$rc ${qm_warm_exit:-}\" > \"$status\"",
                "launch",
                WARM_BASH.toString(),
                statusFile.toString(),
                endpoint.toString()));
    command.addAll(List.of(args));
    var pb = new ProcessBuilder(command).directory(workingDir.toFile());
    pb.environment().clear();
    pb.environment().put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
    pb.environment().putAll(cli.env.variables());
    pb.environment().put("HOME", dir.resolve("home").toString());
    pb.environment().put("LANG", "C.UTF-8");
    var process = pb.start();
    var outBytes = new byte[][] {new byte[0]};
    var out = Thread.ofVirtual().start(() -> outBytes[0] = readAll(process.getInputStream()));
    var err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("bash ended").isTrue();
    out.join();
    assertThat(process.exitValue()).as("bash: " + err).isZero();
    var status = Files.readString(statusFile).strip().split(" ", -1);
    return new Launch(
        Integer.parseInt(status[0]),
        status.length > 1 ? status[1] : "",
        new String(outBytes[0], StandardCharsets.UTF_8),
        err);
  }

  private static byte[] readAll(java.io.InputStream in) {
    try {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void aCommandRunWarmPrintsWhatItPrintsInAJvmOfItsOwn() throws Exception {
    cli.run("apply", "-f", "examples/deviceclass.yaml");
    for (var args :
        List.of(
            List.of("get", "deviceclasses"),
            List.of("get", "deviceclass", "gpu", "-o", "json"),
            List.of("describe", "deviceclass", "gpu"),
            List.of("get", "deviceclasses", "-o", "yaml"),
            List.of("version"))) {
      var line = args.toArray(String[]::new);
      var launched = launch(ExamplesTest.REPO, line);
      var inProcess = cli.run(line);
      assertThat(launched.status()).as("ran warm: " + args).isZero();
      assertThat(launched.exit()).isEqualTo(Integer.toString(inProcess.exit()));
      assertThat(launched.out()).as(String.join(" ", args)).isEqualTo(inProcess.out());
      assertThat(launched.err()).isEqualTo(inProcess.err());
    }
  }

  @Test
  void anErrorKeepsItsExitCodeAndGoesToStandardError() throws Exception {
    var launched = launch(ExamplesTest.REPO, "get", "node", "nosuch");
    assertThat(launched.status()).isZero();
    assertThat(launched.exit()).isEqualTo("1");
    assertThat(launched.out()).isEmpty();
    assertThat(launched.err()).isEqualTo("error: node/nosuch not found\n");

    var usage = launch(ExamplesTest.REPO, "get", "-o", "nosuch", "nodes");
    assertThat(usage.exit()).isEqualTo("2");
    assertThat(usage.err()).contains("-o");
  }

  @Test
  void pathsAreTheCallersWorkingDirectorysAndVariablesTheCallers() throws Exception {
    var launched = launch(ExamplesTest.REPO.resolve("examples"), "apply", "-f", "deviceclass.yaml");
    assertThat(launched.exit()).as(launched.err()).isEqualTo("0");
    assertThat(launched.out()).contains("deviceclass/gpu created");
    assertThat(cli.run("get", "deviceclass", "gpu").exit()).isZero();

    // The config directory is the caller's XDG_CONFIG_HOME: nothing there names a server but the
    // variables, and an unset QM_SERVER would be read from it.
    var list = launch(ExamplesTest.REPO, "config", "list");
    assertThat(list.exit()).isEqualTo(Integer.toString(cli.run("config", "list").exit()));
    assertThat(list.out()).isEqualTo(cli.run("config", "list").out());
  }

  @Test
  void watchesWaitsStandardInputAndHelpAreLeftToAJvmOfTheirOwn() throws Exception {
    for (var args :
        List.of(
            List.of("get", "nodes", "-w"),
            List.of("get", "--for", "workload/x", "workloads"),
            List.of("apply", "-f", "-"),
            List.of("apply", "--filename=-"),
            List.of("apply", "-f", "examples/deviceclass.yaml", "--wait"),
            List.of("logs", "task-0", "-f"),
            List.of("logs", "task-0", "-pf"),
            List.of("get", "--help"))) {
      var launched = launch(ExamplesTest.REPO, args.toArray(String[]::new));
      assertThat(launched.status()).as("left cold: " + args).isEqualTo(2);
      assertThat(launched.out()).isEmpty();
      assertThat(launched.err()).isEmpty();
    }
    assertThat(cli.run("get", "deviceclasses").out()).doesNotContain("gpu");
  }

  @Test
  void withoutTheRequestSecretNothingRuns() throws Exception {
    var line = Files.readString(endpoint).strip().split(" ");
    var wrong = line[1].replace(line[1].charAt(0), line[1].charAt(0) == 'a' ? 'b' : 'a');
    Files.writeString(endpoint, String.join(" ", line[0], wrong, line[2], line[3]) + "\n");
    var launched = launch(ExamplesTest.REPO, "apply", "-f", "examples/deviceclass.yaml");
    assertThat(launched.status()).as("no answer: run it yourself").isEqualTo(1);
    assertThat(launched.out()).isEmpty();
    assertThat(cli.run("get", "deviceclasses").out()).doesNotContain("gpu");
  }

  @Test
  void aListenerWithoutTheReplySecretPrintsNothing() throws Exception {
    // What took the port after the warm client died: it has the request (and the request
    // secret), never the reply secret.
    try (var squatter = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
      var line = Files.readString(endpoint).strip().split(" ");
      Files.writeString(
          endpoint,
          String.join(" ", Integer.toString(squatter.getLocalPort()), line[1], line[2], line[3])
              + "\n");
      Thread.ofVirtual()
          .start(
              () -> {
                try (var s = squatter.accept()) {
                  s.getOutputStream()
                      .write(
                          ("run " + "0".repeat(64) + "\no 9\nforged!\n\nx 0\n")
                              .getBytes(StandardCharsets.US_ASCII));
                  s.getInputStream().readNBytes(10);
                } catch (IOException e) {
                  // the launcher hung up
                }
              });
      var launched = launch(ExamplesTest.REPO, "get", "nodes");
      assertThat(launched.status()).isEqualTo(1);
      assertThat(launched.out()).isEmpty();
    }
  }

  @Test
  void aLauncherThatGaveUpWaitingGetsNothingRunTwice() throws Exception {
    // The warm client side: a launcher that hangs up after the answer, without `go`.
    var line = Files.readString(endpoint).strip().split(" ");
    try (var socket =
        new java.net.Socket(InetAddress.getLoopbackAddress(), Integer.parseInt(line[0]))) {
      var request = new StringBuilder();
      for (var field :
          List.of(
              "qm-warm/1",
              line[1],
              ExamplesTest.REPO.toString(),
              "2",
              "QM_SERVER=" + cli.env.variables().get("QM_SERVER"),
              "QM_TOKEN_FILE=" + cli.env.variables().get("QM_TOKEN_FILE"),
              "3",
              "apply",
              "-f",
              "examples/deviceclass.yaml")) {
        request.append(field).append('\0');
      }
      socket.getOutputStream().write(request.toString().getBytes(StandardCharsets.UTF_8));
      var answer =
          new java.io.BufferedReader(
                  new java.io.InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII))
              .readLine();
      assertThat(answer).isEqualTo("run " + line[2]);
    }
    warm.close();
    warm.awaitCommands();
    assertThat(cli.run("get", "deviceclasses").out()).doesNotContain("gpu");

    // The launcher side: an answer later than it waits is no answer, and it says no `go`.
    var heard = new java.util.concurrent.CompletableFuture<byte[]>();
    try (var slow = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
      Files.writeString(
          endpoint,
          String.join(" ", Integer.toString(slow.getLocalPort()), line[1], line[2], line[3])
              + "\n");
      Thread.ofVirtual()
          .start(
              () -> {
                try (var s = slow.accept()) {
                  Thread.sleep(4_000);
                  s.getOutputStream()
                      .write(("run " + line[2] + "\n").getBytes(StandardCharsets.US_ASCII));
                  s.setSoTimeout(5_000);
                  heard.complete(s.getInputStream().readAllBytes());
                } catch (IOException | InterruptedException e) {
                  heard.completeExceptionally(e);
                }
              });
      var launched = launch(ExamplesTest.REPO, "get", "nodes");
      assertThat(launched.status()).isEqualTo(1);
      assertThat(new String(heard.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8))
          .doesNotContain("go");
    }
  }

  @Test
  void aReaderThatStopsEarlyEndsTheLauncherQuietly() throws Exception {
    // More output than a pipe holds, read by `head -1`: the launcher's frame finds no reader.
    for (int i = 0; i < 400; i++) {
      cli.registry.create(
          new dev.quartermaster.api.device.DeviceClass(
              dev.quartermaster.api.meta.ObjectMeta.named("class-" + i),
              new dev.quartermaster.api.device.DeviceClassSpec("gpu", List.of()),
              dev.quartermaster.api.device.DeviceClassStatus.EMPTY));
    }
    var pb =
        new ProcessBuilder(
                "bash",
                "-c",
                "set -euo pipefail; source \"$1\"; { rc=0; qm_warm_run \"$2\" get deviceclasses -o"
                    + " json || rc=$?; echo \"status=$rc exit=${qm_warm_exit:-}\" >&2; } | head -1",
                "launch",
                WARM_BASH.toString(),
                endpoint.toString())
            .directory(ExamplesTest.REPO.toFile());
    pb.environment().putAll(cli.env.variables());
    var process = pb.start();
    var out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    var err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(out).isEqualTo("{\n");
    assertThat(err).doesNotContain("ended before").contains("status=0 exit=141");
  }

  @Test
  void aRebuiltJarEndsItAndNoCommandRunsTheOldCode() throws Exception {
    assertThat(warm.shouldEnd()).isFalse();
    Files.setLastModifiedTime(jar, FileTime.from(Instant.now().plusSeconds(60)));
    var launched = launch(ExamplesTest.REPO, "version");
    assertThat(launched.status()).as("answered cold").isEqualTo(2);
    assertThat(warm.shouldEnd()).isTrue();
  }

  @Test
  void anotherWarmClientsEndpointEndsThisOneAndCloseRemovesOnlyItsOwn() throws Exception {
    var other = WarmClient.start(endpoint, Optional.empty(), ApiConnector.http(), Duration.ZERO);
    try {
      assertThat(warm.shouldEnd()).as("replaced").isTrue();
      warm.close();
      assertThat(endpoint).as("the other's, kept").exists();
    } finally {
      other.close();
    }
    assertThat(endpoint).doesNotExist();
  }

  @Test
  void theLaunchersListsAreTheWarmClients() throws Exception {
    var bash = Files.readString(WARM_BASH);
    var variables = Pattern.compile("qm_warm_variables=\\(([^)]*)\\)").matcher(bash);
    var words = Pattern.compile("qm_warm_words=\"([^\"]*)\"").matcher(bash);
    assertThat(variables.find()).isTrue();
    assertThat(words.find()).isTrue();
    assertThat(Set.of(variables.group(1).strip().split("\\s+"))).isEqualTo(WarmRequest.VARIABLES);
    assertThat(Set.of(words.group(1).strip().split("\\s+"))).isEqualTo(WarmCommands.WORDS);
    var launcher = Files.readString(ExamplesTest.REPO.resolve("qm"));
    assertThat(launcher).contains("source \"$root/cli/src/main/launcher/warm.bash\"");
    // The variables the CLI reads are among those sent.
    assertThat(WarmRequest.VARIABLES)
        .contains(
            ClientConfig.SERVER_VARIABLE,
            ClientConfig.TOKEN_FILE_VARIABLE,
            ClientConfig.CA_FILE_VARIABLE,
            "QM_DEBUG",
            "XDG_CONFIG_HOME");
  }
}
