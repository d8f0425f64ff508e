package dev.quartermaster.agent.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.quartermaster.agent.discovery.DeviceNumber;
import dev.quartermaster.agent.discovery.VerifiedNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Real processes of this machine holding device nodes, found through the real {@code /proc}. */
@Timeout(60)
class ProcDeviceHoldersTest {
  @TempDir Path dir;

  private Process holder;

  @AfterEach
  void stop() throws Exception {
    if (holder != null) {
      holder.destroyForcibly();
      holder.waitFor();
    }
  }

  /** A {@code sleep} with {@code path} open on fd 3; returns once the file is open. */
  private Process holding(Path path) throws Exception {
    holder =
        new ProcessBuilder(
                "sh", "-c", "exec 3<\"$1\"; echo open; exec sleep 600", "sh", path.toString())
            .redirectErrorStream(true)
            .start();
    var line =
        new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8))
            .readLine();
    assertThat(line).isEqualTo("open");
    return holder;
  }

  private static VerifiedNode node(String path, Path hostPath) {
    return new VerifiedNode(path, hostPath, new DeviceNumber(195, 0));
  }

  @Test
  void aProcessWithTheNodeOpenIsNamedUntilItExits() throws Exception {
    var gpu = Files.createFile(dir.resolve("nvidia0"));
    var other = Files.createFile(dir.resolve("nvidia1"));
    var holders = ProcDeviceHolders.byPath();
    var process = holding(gpu);

    var scan =
        holders.scan(
            Map.of("gpu-0", node("/dev/nvidia0", gpu), "gpu-1", node("/dev/nvidia1", other)));
    assertThat(scan.holders())
        .singleElement()
        .satisfies(
            h -> {
              assertThat(h.device()).isEqualTo("gpu-0");
              assertThat(h.pid()).isEqualTo(process.pid());
              assertThat(h.command()).contains("sleep");
              assertThat(h.openedAs()).isEqualTo(gpu.toString());
            });
    assertThat(holders.scan(Map.of("gpu-1", node("/dev/nvidia1", other))).free()).isTrue();

    process.destroyForcibly();
    process.waitFor();
    assertThat(holders.scan(Map.of("gpu-0", node("/dev/nvidia0", gpu))).free()).isTrue();
  }

  /**
   * The path a container is given ({@code /dev/nvidia0}) may be any process's real device, or
   * another simulated node: a file opened by that path is the node only if it is the same file (a
   * bind mount; here a hard link shows the same file under the other name). With the bench's pods
   * holding their {@code /dev/nvidia0}, every simulated node of the agent's tests read as held.
   */
  @Test
  void aFileOpenedByTheContainersPathIsTheNodeOnlyIfItIsTheSameFile() throws Exception {
    var gpu = Files.createFile(dir.resolve("nvidia0"));
    var elsewhere = Files.createFile(dir.resolve("another-nvidia0"));
    var holders = ProcDeviceHolders.byPath();
    var stranger = holding(elsewhere);
    assertThat(holders.scan(Map.of("gpu-0", node(elsewhere.toString(), gpu))).free())
        .as("a different file under the container's path")
        .isTrue();
    stranger.destroyForcibly();
    stranger.waitFor();

    var sameFile = Files.createLink(dir.resolve("in-container-nvidia0"), gpu);
    var process = holding(sameFile);
    assertThat(holders.scan(Map.of("gpu-0", node(sameFile.toString(), gpu))).holders())
        .singleElement()
        .satisfies(h -> assertThat(h.pid()).isEqualTo(process.pid()));
  }

  @Test
  void thisProcessIsNeverAHolder() throws Exception {
    var gpu = Files.createFile(dir.resolve("nvidia0"));
    try (var open = FileChannel.open(gpu)) {
      assertThat(ProcDeviceHolders.byPath().scan(Map.of("gpu-0", node("/dev/nvidia0", gpu))).free())
          .isTrue();
    }
  }

  /**
   * Inside a container the link reads the container's path, not the host's: a character device with
   * the node's number is the node, whatever it was opened as. A copy of {@code /dev/full} (1:7,
   * which nothing keeps open) stands for the GPU's node; the process opens the real one.
   */
  @Test
  void aCharacterDeviceWithTheNodesNumberIsTheNodeWhateverItsPath() throws Exception {
    var gpu = dir.resolve("nvidia0");
    var made = new ProcessBuilder("mknod", gpu.toString(), "c", "1", "7").start().waitFor();
    assumeTrue(made == 0 && Files.exists(gpu), "mknod needs root");
    var process = holding(Path.of("/dev/full"));
    var nodes = Map.of("gpu-0", node("/dev/nvidia0", gpu));

    var byNumber =
        new ProcDeviceHolders(Path.of("/proc"), ProcessHandle.current().pid(), Set.of(), true);
    assertThat(byNumber.scan(nodes).holders())
        .anySatisfy(
            h -> {
              assertThat(h.pid()).isEqualTo(process.pid());
              assertThat(h.openedAs()).isEqualTo("/dev/full");
            });
    // A simulated root's nodes are stand-ins: there the path alone decides.
    assertThat(ProcDeviceHolders.byPath().scan(nodes).holders())
        .noneSatisfy(h -> assertThat(h.pid()).isEqualTo(process.pid()));
  }

  @Test
  void aProcessWhoseFilesCannotBeReadIsSaidNotSkipped() throws Exception {
    var proc = dir.resolve("proc");
    Files.createDirectories(proc.resolve("4242"));
    Files.writeString(proc.resolve("4242/fd"), "not a directory");
    var gpu = Files.createFile(dir.resolve("nvidia0"));

    var scan =
        new ProcDeviceHolders(proc, 1, Set.of(), false)
            .scan(Map.of("gpu-0", node("/dev/nvidia0", gpu)));
    assertThat(scan.free()).isTrue();
    assertThat(scan.unreadable()).singleElement().asString().startsWith("pid 4242: ");
  }

  @Test
  void theNodesOwnGpuServicesAreNotHolders() throws Exception {
    var gpu = Files.createFile(dir.resolve("nvidia0"));
    var process = holding(gpu);
    // The holder is the shell until it execs sleep: ask once it is sleep, as the service would be.
    var comm = Path.of("/proc", Long.toString(process.pid()), "comm");
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
    while (!Files.readString(comm).strip().equals("sleep") && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertThat(Files.readString(comm).strip()).isEqualTo("sleep");
    var ignoringSleep =
        new ProcDeviceHolders(
            Path.of("/proc"), ProcessHandle.current().pid(), Set.of("sleep"), false);
    assertThat(ignoringSleep.scan(Map.of("gpu-0", node("/dev/nvidia0", gpu))).free()).isTrue();
  }
}
