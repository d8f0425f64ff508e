package dev.quartermaster.agent.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.agent.ledger.ClaimState.PrepareAborted;
import dev.quartermaster.agent.ledger.ClaimState.PrepareCompleted;
import dev.quartermaster.agent.ledger.ClaimState.PrepareStarted;
import dev.quartermaster.agent.names.UnsafeNameException;
import dev.quartermaster.core.env.DeterministicEnv;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ClaimLedgerTest {
  private final DeterministicEnv env = new DeterministicEnv(7);
  private final ClaimLedger ledger = new ClaimLedger(env, ClaimLedger.DEFAULT_TOMBSTONE_TTL);
  private final ClaimRef a = new ClaimRef("aaaa-1", "claim-a");
  private final ClaimRef b = new ClaimRef("bbbb-2", "claim-b");

  private static PrepareRequest req(ClaimRef c, String... devices) {
    return new PrepareRequest(c, List.of(devices), Optional.of("cd-1"));
  }

  @Test
  void prepareStartsThenCompletes() {
    var r = ledger.prepare(req(a, "gpu-0"));
    assertThat(r).isInstanceOf(PrepareResult.Started.class);
    assertThat(r.changed()).isTrue();
    var c = ledger.complete(a.uid(), List.of("quartermaster.dev/gpu=aaaa-1-gpu-0"));
    assertThat(c).isInstanceOf(CompleteResult.Completed.class);
    assertThat(ledger.snapshot().get(a.uid())).get().isInstanceOf(PrepareCompleted.class);
  }

  @Test
  void prepareOfACompletedClaimReturnsTheSameDevicesAndChangesNothing() {
    ledger.prepare(req(a, "gpu-0", "gpu-1"));
    ledger.complete(a.uid(), List.of("x", "y"));
    var version = ledger.version();
    var again = ledger.prepare(req(a, "gpu-1", "gpu-0"));
    assertThat(again)
        .isInstanceOfSatisfying(
            PrepareResult.AlreadyPrepared.class,
            p -> {
              assertThat(p.entry().devices()).containsExactly("gpu-0", "gpu-1");
              assertThat(p.entry().cdiDevices()).containsExactly("x", "y");
            });
    // Checked before writing Started: a repeat never regresses Completed (NVIDIA PR #754).
    assertThat(ledger.version()).isEqualTo(version);
    assertThat(ledger.snapshot().get(a.uid())).get().isInstanceOf(PrepareCompleted.class);
  }

  @Test
  void prepareIsRefusedRetryablyNamingTheHolderWhetherStartedOrCompleted() {
    ledger.prepare(req(a, "gpu-0"));
    var whileStarted = ledger.prepare(req(b, "gpu-1", "gpu-0"));
    assertThat(whileStarted)
        .isInstanceOfSatisfying(
            PrepareResult.Held.class,
            h -> {
              assertThat(h.device()).isEqualTo("gpu-0");
              assertThat(h.holder()).isEqualTo(a);
              assertThat(h.reason()).contains("gpu-0", "aaaa-1", "claim-a", "PrepareStarted");
            });
    ledger.complete(a.uid(), List.of());
    assertThat(ledger.prepare(req(b, "gpu-0"))).isInstanceOf(PrepareResult.Held.class);
    // Nothing was written for b, not even a Started entry that would reserve gpu-1.
    assertThat(ledger.snapshot().get(b.uid())).isEmpty();
    ledger.unprepare(a);
    assertThat(ledger.prepare(req(b, "gpu-0"))).isInstanceOf(PrepareResult.Started.class);
  }

  @Test
  void retryOfAStartedPrepareMayRedoItsWork() {
    ledger.prepare(req(a, "gpu-0"));
    var version = ledger.version();
    assertThat(ledger.prepare(req(a, "gpu-0")))
        .isInstanceOfSatisfying(
            PrepareResult.Started.class, s -> assertThat(s.changed()).isFalse());
    assertThat(ledger.version()).isEqualTo(version);
  }

  @Test
  void prepareWithOtherDevicesThanRecordedIsAMismatch() {
    ledger.prepare(req(a, "gpu-0"));
    assertThat(ledger.prepare(req(a, "gpu-1"))).isInstanceOf(PrepareResult.Mismatch.class);
    ledger.complete(a.uid(), List.of());
    assertThat(ledger.prepare(req(a, "gpu-1")))
        .isInstanceOfSatisfying(
            PrepareResult.Mismatch.class, m -> assertThat(m.reason()).contains("gpu-0", "gpu-1"));
  }

  @Test
  void unprepareIsIdempotentAndFineForUnknownClaims() {
    var stranger = new ClaimRef("never-seen", "stranger");
    assertThat(ledger.unprepare(stranger)).isInstanceOf(UnprepareResult.NeverPrepared.class);
    // The prepare that this unprepare overtook arrives late: refused by the tombstone.
    assertThat(ledger.prepare(req(stranger, "gpu-0"))).isInstanceOf(PrepareResult.Aborted.class);
    assertThat(ledger.unprepare(stranger)).isInstanceOf(UnprepareResult.AlreadyUnprepared.class);
    ledger.prepare(req(a, "gpu-0"));
    ledger.complete(a.uid(), List.of());
    assertThat(ledger.unprepare(a))
        .isInstanceOfSatisfying(
            UnprepareResult.Released.class,
            r -> assertThat(r.previous()).isInstanceOf(PrepareCompleted.class));
    var version = ledger.version();
    assertThat(ledger.unprepare(a)).isInstanceOf(UnprepareResult.AlreadyUnprepared.class);
    assertThat(ledger.version()).isEqualTo(version);
  }

  @Test
  void unprepareOfAStartedClaimLeavesATombstoneThatRefusesTheLateRetryAndItsCompletion() {
    ledger.prepare(req(a, "gpu-0"));
    assertThat(ledger.unprepare(a))
        .isInstanceOfSatisfying(
            UnprepareResult.Released.class,
            r -> assertThat(r.previous()).isInstanceOf(PrepareStarted.class));
    // The prepare that was in flight finishes its work and tries to complete: refused (NVIDIA
    // #1162).
    assertThat(ledger.complete(a.uid(), List.of())).isInstanceOf(CompleteResult.Aborted.class);
    // And its retry is refused too, with the time it will be accepted again.
    env.advance(Duration.ofSeconds(89));
    assertThat(ledger.prepare(req(a, "gpu-0")))
        .isInstanceOfSatisfying(
            PrepareResult.Aborted.class,
            ab -> {
              assertThat(ab.expiresAt()).isEqualTo(DeterministicEnv.DEFAULT_START.plusSeconds(90));
              assertThat(ab.reason()).contains("unprepared");
            });
    // The tombstone holds nothing: another claim may take the device at once.
    assertThat(ledger.prepare(req(b, "gpu-0"))).isInstanceOf(PrepareResult.Started.class);
  }

  @Test
  void tombstonesExpireByEnvTime() {
    var shortLedger = new ClaimLedger(env, Duration.ofSeconds(10));
    shortLedger.prepare(req(a, "gpu-0"));
    shortLedger.unprepare(a);
    env.advance(Duration.ofSeconds(9));
    assertThat(shortLedger.pruneExpired()).isZero();
    assertThat(shortLedger.snapshot().get(a.uid())).get().isInstanceOf(PrepareAborted.class);
    var loaded = new ClaimLedger(env, Duration.ofSeconds(10), shortLedger.snapshot());
    assertThat(loaded.pruneExpired()).as("loaded from a checkpoint, before the expiry").isZero();
    env.advance(Duration.ofSeconds(1));
    assertThat(shortLedger.pruneExpired()).isEqualTo(1);
    assertThat(loaded.pruneExpired()).as("loaded from a checkpoint, at the expiry").isEqualTo(1);
    assertThat(shortLedger.snapshot().claims()).isEmpty();
    assertThat(shortLedger.unprepare(a)).isInstanceOf(UnprepareResult.NeverPrepared.class);
  }

  /**
   * The name index agents ask on every claim event: held while any entry of that name is,
   * tombstones included.
   */
  @Test
  void holdsNameFollowsEveryEntryOfThatNameUntilTheLastIsPruned() {
    var shortLedger = new ClaimLedger(env, Duration.ofSeconds(10));
    assertThat(shortLedger.holdsName("claim-a")).isFalse();
    shortLedger.prepare(req(a, "gpu-0"));
    shortLedger.unprepare(a);
    env.advance(Duration.ofSeconds(5));
    var again = new ClaimRef("aaaa-2", "claim-a"); // the claim made again: a new uid, the same name
    shortLedger.prepare(req(again, "gpu-0"));
    shortLedger.unprepare(again);
    assertThat(shortLedger.holdsName("claim-a")).isTrue();
    assertThat(shortLedger.entriesNamed("claim-a"))
        .extracting(e -> e.claim().uid())
        .containsExactly("aaaa-1", "aaaa-2");
    assertThat(shortLedger.entry("aaaa-2")).isEqualTo(shortLedger.snapshot().get("aaaa-2"));
    assertThat(shortLedger.entriesNamed("claim-b")).isEmpty();
    assertThat(
            new ClaimLedger(env, Duration.ofSeconds(10), shortLedger.snapshot())
                .holdsName("claim-a"))
        .as("a ledger loaded from a checkpoint")
        .isTrue();
    env.advance(Duration.ofSeconds(5));
    assertThat(shortLedger.pruneExpired()).isEqualTo(1);
    assertThat(shortLedger.holdsName("claim-a")).as("the second tombstone is still held").isTrue();
    assertThat(shortLedger.entriesNamed("claim-a"))
        .extracting(e -> e.claim().uid())
        .containsExactly("aaaa-2");
    env.advance(Duration.ofSeconds(5));
    assertThat(shortLedger.pruneExpired()).isEqualTo(1);
    assertThat(shortLedger.holdsName("claim-a")).isFalse();
    assertThat(shortLedger.holdsName("claim-b")).isFalse();
  }

  @Test
  void completeOfAnUnknownClaimSaysSo() {
    assertThat(ledger.complete("nobody", List.of())).isInstanceOf(CompleteResult.NotStarted.class);
  }

  @Test
  void aStateWithADoublyHeldDeviceIsRefused() {
    var t = DeterministicEnv.DEFAULT_START;
    var bad =
        new LedgerState(
            Map.of(
                a.uid(), new PrepareCompleted(a, List.of("gpu-0"), Optional.empty(), t, List.of()),
                b.uid(), new PrepareStarted(b, List.of("gpu-0"), Optional.empty(), t)),
            3);
    assertThatThrownBy(() -> new ClaimLedger(env, Duration.ofSeconds(90), bad))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("gpu-0")
        .hasMessageContaining("aaaa-1")
        .hasMessageContaining("bbbb-2");
  }

  @Test
  void requestsWithUnsafeNamesAreRefusedBeforeTheLedger() {
    assertThatThrownBy(() -> new ClaimRef("../etc", "x"))
        .isInstanceOf(UnsafeNameException.class)
        .hasMessageContaining("claim uid '../etc'");
    assertThatThrownBy(() -> new ClaimRef("a/b", "x")).isInstanceOf(UnsafeNameException.class);
    assertThatThrownBy(() -> new ClaimRef("a\0b", "x"))
        .isInstanceOf(UnsafeNameException.class)
        .hasMessageContaining("\\u0000");
    assertThatThrownBy(() -> PrepareRequest.of(a, List.of("../gpu")))
        .isInstanceOf(UnsafeNameException.class)
        .hasMessageContaining("device name '../gpu'");
    assertThatThrownBy(() -> PrepareRequest.of(a, List.of("gpu/0")))
        .isInstanceOf(UnsafeNameException.class);
    assertThatThrownBy(() -> PrepareRequest.of(a, List.of("gpu-0", "gpu-0")))
        .hasMessageContaining("twice");
    assertThatThrownBy(() -> PrepareRequest.of(a, List.of()))
        .hasMessageContaining("at least one device");
  }

  @Test
  void effectsAreDerivedFromEntriesThatHoldDevices() {
    ledger.prepare(req(a, "gpu-0"));
    ledger.prepare(new PrepareRequest(b, List.of("gpu-1"), Optional.of("cd-2")));
    ledger.complete(b.uid(), List.of());
    assertThat(NodeEffects.of(ledger.snapshot()).computeDomains()).containsExactly("cd-1", "cd-2");
    ledger.unprepare(b);
    assertThat(NodeEffects.of(ledger.snapshot()).computeDomains()).containsExactly("cd-1");
    ledger.unprepare(a);
    assertThat(NodeEffects.of(ledger.snapshot())).isEqualTo(NodeEffects.NONE);
  }
}
