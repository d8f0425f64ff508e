package dev.quartermaster.agent.mig;

import dev.quartermaster.api.device.mig.MigPlacement;
import java.util.Optional;

/**
 * Where a real agent process may be told to die on purpose, for black-box crash runs ({@code
 * QM_CRASH_AT=mig-created}, read by the host's device tree): the process halts (no shutdown hooks,
 * as {@code kill -9}) right after the driver made an instance and before the ledger records the
 * prepare complete. Off unless that variable names it.
 */
public enum MigCrashPoint {
  /** Right after {@link MigControl#create} returned. */
  CREATED("mig-created");

  /** The environment variable naming the crash point. */
  public static final String VARIABLE = "QM_CRASH_AT";

  private final String word;

  MigCrashPoint(String word) {
    this.word = word;
  }

  /** The point {@code value} (the variable's value) names, if any. */
  public static Optional<MigCrashPoint> named(String value) {
    for (var p : values()) {
      if (p.word.equals(value)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /** {@code inner} that runs {@code halt} at this point. */
  public MigControl around(MigControl inner, Runnable halt) {
    return new ForwardingMig(inner) {
      @Override
      public LiveInstance create(MigGpu gpu, MigPlacement placement) throws MigRefusedException {
        var made = inner.create(gpu, placement);
        halt.run();
        return made;
      }
    };
  }
}
