package dev.quartermaster.agent.checkpoint;

import dev.quartermaster.agent.ledger.ClaimLedger;
import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.agent.ledger.CompleteResult;
import dev.quartermaster.agent.ledger.PrepareRequest;
import dev.quartermaster.agent.ledger.PrepareResult;
import dev.quartermaster.core.env.SystemEnv;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The child JVM of {@link CrashSafetyTest}: takes the state-directory lock, loads the real
 * checkpoint, then prepares and unprepares claims until it is killed. Each line it prints is an
 * acknowledgement, printed only after the change is durable:
 *
 * <pre>
 * READY &lt;pid&gt;;
 * ACK P &lt;uid&gt; &lt;dev,dev&gt;;    prepared (PrepareCompleted is on disk)
 * BEGIN U &lt;uid&gt;;            about to unprepare (it may be on disk even if no ACK follows)
 * ACK U &lt;uid&gt;;              unprepared (the tombstone is on disk)
 * </pre>
 *
 * The trailing ';' marks a complete line, so the parent ignores a line cut by the kill.
 */
public final class LedgerCrashChild {
  static final int DEVICES = 8;
  static final long COMPACT_AT_BYTES = 8 << 10;

  /** Flushes; exits when nobody reads any more, so a child whose parent died never lingers. */
  private static void ack(java.io.PrintStream out) {
    out.flush();
    if (out.checkError()) {
      System.exit(3);
    }
  }

  public static void main(String[] args) throws Exception {
    var stateDir = Path.of(args[0]);
    long seed = Long.parseLong(args[1]);
    var random = new SplittableRandom(seed);
    try (var lock = StateDirLock.acquire(stateDir)) {
      // A small journal limit, so that compactions (snapshot, then a new journal) happen every few
      // cycles and the kills land inside them too, not only in appends.
      var durable =
          DurableLedger.open(
                  new AtomicLedgerFile(stateDir.resolve("ledger.json")),
                  CrashSafetyTest.BOOT,
                  new SystemEnv(),
                  ClaimLedger.DEFAULT_TOMBSTONE_TTL,
                  COMPACT_AT_BYTES)
              .ledger();
      var ledger = durable.ledger();
      var out = System.out;
      out.println("READY " + ProcessHandle.current().pid() + ";");
      ack(out);
      long n = 0;
      while (true) {
        var holding = ledger.snapshot().holding();
        if (holding.isEmpty() || (holding.size() < DEVICES - 2 && random.nextInt(10) < 6)) {
          var claim = new ClaimRef("s" + seed + "-" + n++, "claim-" + (n % 1000));
          var devices = new ArrayList<String>();
          devices.add("gpu-" + random.nextInt(DEVICES));
          var second = "gpu-" + random.nextInt(DEVICES);
          if (random.nextBoolean() && !devices.contains(second)) {
            devices.add(second);
          }
          if (ledger.prepare(PrepareRequest.of(claim, devices)) instanceof PrepareResult.Started) {
            durable.persist();
            if (ledger.complete(claim.uid(), List.of()) instanceof CompleteResult.Completed) {
              durable.persist();
              out.println("ACK P " + claim.uid() + " " + String.join(",", devices) + ";");
              ack(out);
            }
          }
        } else {
          var victim = holding.get(random.nextInt(holding.size())).claim();
          // Said before the change: once the journal frame is written, a kill during its fsync can
          // still leave it on disk (the page cache survives SIGKILL), so the parent must know that
          // this unprepare may have happened without its acknowledgement.
          out.println("BEGIN U " + victim.uid() + ";");
          ack(out);
          ledger.unprepare(victim);
          durable.persist();
          out.println("ACK U " + victim.uid() + ";");
          ack(out);
        }
      }
    }
  }
}
