package dev.quartermaster.store.etcd;

import dev.quartermaster.core.env.OutsideEnv;
import dev.quartermaster.core.files.FileTrees;
import dev.quartermaster.core.net.LoopbackPorts;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * An etcd cluster of one or more members on loopback ports, each an {@code etcd} process started as
 * an operator would (its data and log under {@code dir/<member>}): for tests, benches and the
 * README's recipe. Members can be killed ({@code SIGKILL}) and started again on the same ports and
 * data, and the cluster can say which member leads.
 */
@OutsideEnv("starts and waits for real etcd processes")
public final class EtcdProcesses implements AutoCloseable {
  /** Where tests and benches look for etcd: {@code $QM_ETCD}, else the usual install paths. */
  public static Optional<Path> binary() {
    var given = Optional.ofNullable(System.getenv("QM_ETCD")).map(Path::of);
    return given.or(
        () ->
            List.of("/usr/local/bin/etcd", "/usr/bin/etcd").stream()
                .map(Path::of)
                .filter(Files::isExecutable)
                .findFirst());
  }

  /** What a test without etcd says: how to get one. */
  public static final String HOW_TO_INSTALL =
      "no etcd here: run .ci/install-etcd.sh (etcd 3.5 into /usr/local/bin) or set QM_ETCD";

  private record Member(String name, int clientPort, int peerPort) {
    String clientUrl() {
      return "http://127.0.0.1:" + clientPort;
    }

    String peerUrl() {
      return "http://127.0.0.1:" + peerPort;
    }
  }

  private final Path binary;
  private final Path dir;
  private final List<Member> members;
  private final Process[] processes;

  private EtcdProcesses(Path binary, Path dir, List<Member> members) {
    this.binary = binary;
    this.dir = dir;
    this.members = members;
    this.processes = new Process[members.size()];
  }

  /**
   * Starts {@code size} members under {@code dir} and waits until the cluster commits a write. A
   * member that died at start (its log says why, and the error quotes it) fails the attempt, and
   * the cluster is started again on other ports with fresh data, twice at most: a cluster that
   * answers with a majority and one member dead would lose its quorum at the first kill a test
   * makes.
   */
  public static EtcdProcesses start(Path binary, Path dir, int size) throws IOException {
    for (int attempt = 1; ; attempt++) {
      var members = new ArrayList<Member>();
      for (int i = 0; i < size; i++) {
        members.add(new Member("m" + i, freePort(), freePort()));
      }
      var cluster = new EtcdProcesses(binary, dir, List.copyOf(members));
      try {
        for (int i = 0; i < size; i++) {
          cluster.startMember(i);
        }
        cluster.awaitHealthy(Duration.ofSeconds(60));
        var dead =
            IntStream.range(0, size)
                .filter(i -> !cluster.isAlive(i))
                .mapToObj(i -> members.get(i).name())
                .toList();
        if (!dead.isEmpty()) {
          var diagnosis = cluster.diagnosis();
          cluster.close();
          if (attempt == 3) {
            throw new IllegalStateException(
                "etcd members " + dead + " died at start, 3 times: " + diagnosis);
          }
          System.getLogger(EtcdProcesses.class.getName())
              .log(
                  System.Logger.Level.WARNING,
                  "etcd members "
                      + dead
                      + " died at start; starting the cluster again on other ports: "
                      + diagnosis);
          for (var m : members) {
            FileTrees.delete(dir.resolve(m.name()).resolve("data"));
          }
          continue;
        }
        cluster.awaitWritable(Duration.ofSeconds(60));
        return cluster;
      } catch (IOException | RuntimeException e) {
        cluster.close();
        throw e;
      }
    }
  }

  /** The members' process ids (of those running), for what their CPU costs a bench. */
  public List<Long> pids() {
    return java.util.Arrays.stream(processes)
        .filter(p -> p != null && p.isAlive())
        .map(Process::pid)
        .toList();
  }

  public int size() {
    return members.size();
  }

  /** Every member's client URL, as {@code --store etcd://} takes them. */
  public List<String> endpoints() {
    return members.stream().map(Member::clientUrl).toList();
  }

  /** {@code etcd://127.0.0.1:p1,127.0.0.1:p2,…}: the value of {@code qm server --store}. */
  public String storeUri() {
    return "etcd://"
        + members.stream().map(m -> "127.0.0.1:" + m.clientPort()).collect(Collectors.joining(","));
  }

  private void startMember(int i) throws IOException {
    var m = members.get(i);
    var memberDir = dir.resolve(m.name());
    Files.createDirectories(memberDir);
    var initial =
        members.stream().map(x -> x.name() + "=" + x.peerUrl()).collect(Collectors.joining(","));
    var state = Files.exists(memberDir.resolve("data")) ? "existing" : "new";
    processes[i] =
        new ProcessBuilder(
                binary.toString(),
                "--name",
                m.name(),
                "--data-dir",
                memberDir.resolve("data").toString(),
                "--listen-client-urls",
                m.clientUrl(),
                "--advertise-client-urls",
                m.clientUrl(),
                "--listen-peer-urls",
                m.peerUrl(),
                "--initial-advertise-peer-urls",
                m.peerUrl(),
                "--initial-cluster",
                initial,
                "--initial-cluster-state",
                state,
                "--initial-cluster-token",
                "qm-" + dir.getFileName(),
                "--log-level",
                "warn")
            .redirectErrorStream(true)
            .redirectOutput(
                ProcessBuilder.Redirect.appendTo(memberDir.resolve("etcd.log").toFile()))
            .start();
  }

  /** {@code kill -9} of member {@code i}. */
  public void kill(int i) throws InterruptedException {
    var p = processes[i];
    if (p != null) {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** Starts member {@code i} again on its ports and data. */
  public void restart(int i) throws IOException {
    startMember(i);
  }

  public boolean isAlive(int i) {
    return processes[i] != null && processes[i].isAlive();
  }

  /** The index of the member that leads now, as the live members report it. */
  public OptionalInt leader() {
    for (int i = 0; i < members.size(); i++) {
      if (!isAlive(i)) {
        continue;
      }
      try (var client = Client.builder().endpoints(members.get(i).clientUrl()).build()) {
        var status =
            client
                .getMaintenanceClient()
                .statusMember(members.get(i).clientUrl())
                .get(2, TimeUnit.SECONDS);
        long leaderId = status.getLeader();
        if (leaderId == 0) {
          continue;
        }
        if (status.getHeader().getMemberId() == leaderId) {
          return OptionalInt.of(i);
        }
        // A follower names the leader it last heard from, which may be dead: only a live one
        // counts.
        var ids = client.getClusterClient().listMember().get(2, TimeUnit.SECONDS).getMembers();
        for (var member : ids) {
          if (member.getId() == leaderId) {
            var name = member.getName();
            var found =
                IntStream.range(0, members.size())
                    .filter(j -> members.get(j).name().equals(name))
                    .findFirst();
            if (found.isPresent() && isAlive(found.getAsInt())) {
              return found;
            }
          }
        }
      } catch (Exception e) {
        // this member cannot say now: ask the next
      }
    }
    return OptionalInt.empty();
  }

  /** Waits until some live member reports a leader. */
  public void awaitHealthy(Duration bound) {
    long deadline = System.nanoTime() + bound.toNanos();
    while (leader().isEmpty()) {
      for (int i = 0; i < members.size(); i++) {
        if (processes[i] != null
            && !processes[i].isAlive()
            && processes[i].exitValue() != 137
            && processes[i].exitValue() != 143) {
          throw new IllegalStateException(
              "etcd member "
                  + members.get(i).name()
                  + " exited "
                  + processes[i].exitValue()
                  + "; its log: "
                  + dir.resolve(members.get(i).name()).resolve("etcd.log"));
        }
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("etcd under " + dir + " has no leader after " + bound);
      }
      pause();
    }
  }

  /** Between two polls of a process we do not control. */
  private static void pause() {
    try {
      Thread.sleep(100);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /**
   * Waits until a write commits through the live members: a delete of an absent key outside every
   * prefix we use, which goes through raft and the members' disks but adds no revision. A leader is
   * not enough: on a slow disk its first proposals after a member dies can time out ({@code
   * etcdserver: request timed out}) while the survivors catch up.
   */
  public void awaitWritable(Duration bound) {
    var live =
        IntStream.range(0, members.size())
            .filter(this::isAlive)
            .mapToObj(i -> members.get(i).clientUrl())
            .toList();
    var probe = ByteSequence.from("/qm-etcd-probe", StandardCharsets.UTF_8);
    long deadline = System.nanoTime() + bound.toNanos();
    Exception last = null;
    try (var client = Client.builder().endpoints(live.toArray(String[]::new)).build()) {
      while (System.nanoTime() < deadline) {
        try {
          client.getKVClient().delete(probe).get(10, TimeUnit.SECONDS);
          return;
        } catch (ExecutionException | TimeoutException e) {
          last = e;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted", e);
        }
        pause();
      }
    }
    throw new IllegalStateException(
        "etcd under "
            + dir
            + " commits no write after "
            + bound
            + ": "
            + last
            + "; "
            + diagnosis());
  }

  /** Each member: running or how it exited, and the end of its log. */
  public String diagnosis() {
    var out = new StringBuilder();
    for (int i = 0; i < members.size(); i++) {
      var m = members.get(i);
      var p = processes[i];
      out.append("member ")
          .append(m.name())
          .append(" (client ")
          .append(m.clientPort())
          .append(", peer ")
          .append(m.peerPort())
          .append("): ")
          .append(p == null ? "not started" : p.isAlive() ? "running" : "exited " + p.exitValue());
      var log = dir.resolve(m.name()).resolve("etcd.log");
      try {
        var lines = Files.readAllLines(log);
        out.append(", its log ends: ")
            .append(String.join(" | ", lines.subList(Math.max(0, lines.size() - 3), lines.size())));
      } catch (IOException | RuntimeException e) {
        out.append(", no log at ").append(log);
      }
      out.append("; ");
    }
    return out.toString();
  }

  @Override
  public void close() {
    for (var p : processes) {
      if (p != null) {
        p.destroyForcibly();
      }
    }
    for (var p : processes) {
      if (p != null) {
        try {
          p.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  private static int freePort() {
    return LoopbackPorts.free();
  }
}
