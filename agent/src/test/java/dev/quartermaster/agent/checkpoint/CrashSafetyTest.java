package dev.quartermaster.agent.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.agent.ledger.ClaimState;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * I6 with real processes: a child JVM prepares and unprepares over the real snapshot and journal
 * (compacting every few kilobytes, so kills land in appends, fsyncs and compactions alike) and is
 * killed with SIGKILL at random points ({@code -Dqm.kills}, default 50). After every kill the
 * ledger must load, hold no device twice (I1), and contain every acknowledged prepare that was not
 * later unprepared; no acknowledged unprepare may come back. An unprepare the child began but was
 * killed before acknowledging may or may not stand, as with any write a crash interrupts.
 */
class CrashSafetyTest {
  static final String BOOT = "crash-test-boot";

  @Test
  void killNineAtRandomPointsLosesNothingAcknowledged(@TempDir Path stateDir) throws Exception {
    int kills = Integer.getInteger("qm.kills", 50);
    long seed = Long.getLong("qm.seed", 6L);
    var random = new SplittableRandom(seed);
    var prepared =
        new HashMap<String, List<String>>(); // acknowledged prepared, not acknowledged unprepared
    var unprepared = new HashSet<String>();
    var begun = new HashSet<String>(); // unprepares begun, acknowledged or not
    int acks = 0;
    for (int cycle = 0; cycle < kills; cycle++) {
      var child = start(stateDir, seed * 1_000 + cycle);
      try (var out =
          new BufferedReader(
              new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
        var ready = out.readLine();
        assertThat(ready)
            .as("child %d said (see %s)", cycle, stateDir.resolve("child.err"))
            .startsWith("READY ");
        if (cycle == 0) {
          // A second agent on the same state directory is refused, naming the holder's pid.
          var pid = ready.substring("READY ".length(), ready.length() - 1);
          assertThatThrownBy(() -> StateDirLock.acquire(stateDir))
              .isInstanceOf(StateDirLockedException.class)
              .hasMessageContaining("pid " + pid);
        }
        int killAfter = 1 + random.nextInt(20);
        for (int seen = 0; seen < killAfter; ) {
          var line = out.readLine();
          if (line == null) {
            break;
          }
          if (record(line, prepared, unprepared, begun)) {
            seen++;
            acks++;
          }
        }
        // SIGKILL, wherever it is: mid-write, mid-rename, mid-fsync. Through the handle, because
        // Process.destroyForcibly also closes our end of its stdout, and we still want to read it.
        child.toHandle().destroyForcibly();
        // Acknowledgements printed before the kill landed count too.
        for (var line = out.readLine(); line != null; line = out.readLine()) {
          if (record(line, prepared, unprepared, begun)) {
            acks++;
          }
        }
      }
      assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("child exits after SIGKILL").isTrue();
      verify(stateDir, prepared, unprepared, begun, cycle);
    }
    assertThat(acks)
        .as("acknowledged operations over %d kills", kills)
        .isGreaterThanOrEqualTo(kills);
    // The kills ran across compactions (each one starts a new journal generation), not only
    // appends.
    var snapshot = stateDir.resolve("ledger.json");
    assertThat(
            CheckpointCodec.decode(Files.readAllBytes(snapshot), snapshot.toString())
                .journalGeneration())
        .as("journal generations over %d kills", kills)
        .isGreaterThan(Math.min(kills / 10, 3));
  }

  private static void verify(
      Path stateDir,
      Map<String, List<String>> prepared,
      Set<String> unprepared,
      Set<String> begun,
      int cycle)
      throws Exception {
    var file = stateDir.resolve("ledger.json");
    // Loads snapshot + journal (corruption would throw; a torn last frame is not corruption), and
    // decoding and replay both refuse a doubly held device (I1).
    var state = LedgerRecovery.read(new AtomicLedgerFile(file)).orElseThrow().state();
    assertThat(state.doubleHeld()).as("after kill %d", cycle).isEmpty();
    for (var e : prepared.entrySet()) {
      var entry = state.get(e.getKey());
      if (begun.contains(e.getKey()) && !entry.map(ClaimState::holdsDevices).orElse(false)) {
        // An unprepare the kill cut off after its frame was written: it may stand, unacknowledged
        // (the caller retries it; unprepare is idempotent), and its tombstone may since have
        // expired
        // in a long run. Never the reverse: see `unprepared`.
        continue;
      }
      assertThat(entry)
          .as("acknowledged prepare of %s after kill %d", e.getKey(), cycle)
          .get()
          .isInstanceOfSatisfying(
              ClaimState.PrepareCompleted.class,
              c -> assertThat(c.devices()).containsExactlyElementsOf(e.getValue()));
    }
    for (var uid : unprepared) {
      assertThat(state.get(uid).map(ClaimState::holdsDevices))
          .as("acknowledged unprepare of %s", uid)
          .isNotEqualTo(java.util.Optional.of(true));
    }
    try (var files = Files.list(stateDir)) {
      // Only our files; a leftover temp file from a kill is fine, a second ledger is not.
      assertThat(files.map(p -> p.getFileName().toString()))
          .allMatch(
              n ->
                  List.of(
                          "ledger.json",
                          ".ledger.json.tmp",
                          "ledger.journal",
                          ".ledger.journal.tmp",
                          "ledger.journal.mark",
                          "agent.lock",
                          "child.err")
                      .contains(n));
    }
  }

  /**
   * Records a complete acknowledgement line; false for anything else (e.g. a line cut by the kill).
   */
  private static boolean record(
      String line, Map<String, List<String>> prepared, Set<String> unprepared, Set<String> begun) {
    if (!line.endsWith(";")) {
      return false;
    }
    var parts = line.substring(0, line.length() - 1).split(" ");
    if (parts.length == 3 && parts[0].equals("BEGIN") && parts[1].equals("U")) {
      begun.add(parts[2]);
      return false;
    }
    if (parts.length == 4 && parts[0].equals("ACK") && parts[1].equals("P")) {
      prepared.put(parts[2], List.of(parts[3].split(",")));
      return true;
    }
    if (parts.length == 3 && parts[0].equals("ACK") && parts[1].equals("U")) {
      prepared.remove(parts[2]);
      unprepared.add(parts[2]);
      return true;
    }
    return false;
  }

  private static Process start(Path stateDir, long seed) throws Exception {
    var java =
        ProcessHandle.current()
            .info()
            .command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    var command =
        new ArrayList<>(
            List.of(
                java,
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-Xshare:auto",
                "-Xmx64m",
                // No logging backend start-up in the child: it would only make each cycle slower.
                "-Dslf4j.provider=org.slf4j.helpers.NOP_FallbackServiceProvider",
                "-cp",
                System.getProperty("java.class.path"),
                LedgerCrashChild.class.getName(),
                stateDir.toString(),
                Long.toString(seed)));
    return new ProcessBuilder(command)
        .redirectError(ProcessBuilder.Redirect.appendTo(stateDir.resolve("child.err").toFile()))
        .start();
  }
}
