package dev.quartermaster.csi.hostpath;

import dev.quartermaster.core.env.OutsideEnv;
import dev.quartermaster.csi.plugin.CsiCall;
import dev.quartermaster.csi.plugin.CsiCode;
import dev.quartermaster.csi.plugin.CsiException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Every call passes through here: it adds the artificial latency and, for destructive controller
 * calls, watches for overlap. With detection on, a destructive call that starts while another is in
 * flight fails with ABORTED, the code the spec gives for "operation pending"; it is counted either
 * way, so that a CO's serialization (one destructive call at a time per plugin) can be checked from
 * outside through the metrics.
 */
@OutsideEnv(
    "the hostpath plugin's configured call latency is a real delay inside a real plugin process")
final class CallGate {
  private final boolean detectOverlap;
  private final Duration latency;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicLong destructive = new AtomicLong();
  private final AtomicLong overlaps = new AtomicLong();

  CallGate(boolean detectOverlap, Duration latency) {
    this.detectOverlap = detectOverlap;
    this.latency = latency;
  }

  /** A call that has entered; closing it leaves. */
  interface Pass extends AutoCloseable {
    @Override
    void close();
  }

  Pass enter(CsiCall call) {
    if (!call.destructive()) {
      delay(call);
      return () -> {};
    }
    destructive.incrementAndGet();
    var others = inFlight.getAndIncrement();
    if (others > 0) {
      overlaps.incrementAndGet();
      if (detectOverlap) {
        inFlight.decrementAndGet();
        throw new CsiException(
            call,
            CsiCode.ABORTED,
            "overlapping controller call: "
                + others
                + " other destructive call(s) in flight on this plugin");
      }
    }
    try {
      delay(call);
    } catch (RuntimeException e) {
      inFlight.decrementAndGet();
      throw e;
    }
    return inFlight::decrementAndGet;
  }

  OverlapStats stats() {
    return new OverlapStats(destructive.get(), overlaps.get());
  }

  private void delay(CsiCall call) {
    if (latency.isZero() || latency.isNegative()) {
      return;
    }
    // Only for tests and benchmarks; calls run on virtual threads, so the wait holds no carrier.
    try {
      Thread.sleep(latency);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CsiException(call, CsiCode.CANCELLED, "interrupted");
    }
  }
}
