package dev.quartermaster.agent.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.device.CounterConsumption;
import dev.quartermaster.api.device.CounterSet;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.use.DeviceUse;
import dev.quartermaster.core.env.DeterministicEnv;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The ledger asks device use, as the store does: on a node whose {@code gpu-0} shares counters with
 * its MIG slices, a prepare of a slice while another claim holds the whole GPU is refused naming
 * the holder; two slices fit; with no counters declared, the two names are two devices, as today.
 */
class SharedCountersLedgerTest {
  private final DeterministicEnv env = new DeterministicEnv(7);
  private final ClaimRef a = new ClaimRef("aaaa-1", "claim-a");
  private final ClaimRef b = new ClaimRef("bbbb-2", "claim-b");
  private final ClaimRef c = new ClaimRef("cccc-3", "claim-c");

  private static DeviceUse partitioned() {
    return DeviceUse.of(
        new DeviceSliceSpec(
            "node-1",
            List.of(gpu("gpu-0", 7), gpu("gpu-0-slice-0", 1), gpu("gpu-0-slice-1", 1)),
            List.of(new CounterSet("gpu-0", Map.of("compute", 7L)))));
  }

  private static Device gpu(String name, long compute) {
    return new Device(
        name,
        "gpu",
        Map.of(),
        Device.Health.Healthy,
        "",
        List.of(new CounterConsumption("gpu-0", Map.of("compute", compute))));
  }

  private ClaimLedger ledger(DeviceUse use) {
    var ledger = new ClaimLedger(env, ClaimLedger.DEFAULT_TOMBSTONE_TTL);
    ledger.judgeBy(use);
    return ledger;
  }

  @Test
  void aSliceOfAGpuAnotherClaimHoldsIsRefusedNamingTheHolder() {
    var ledger = ledger(partitioned());
    ledger.prepare(PrepareRequest.of(a, List.of("gpu-0")));

    assertThat(ledger.prepare(PrepareRequest.of(b, List.of("gpu-0-slice-0"))))
        .isInstanceOfSatisfying(
            PrepareResult.Held.class,
            h -> {
              assertThat(h.device()).isEqualTo("gpu-0");
              assertThat(h.holder()).isEqualTo(a);
            });
    assertThat(ledger.snapshot().get(b.uid())).isEmpty();
  }

  @Test
  void twoSlicesFitAndTheWholeGpuThenDoesNot() {
    var ledger = ledger(partitioned());
    assertThat(ledger.prepare(PrepareRequest.of(a, List.of("gpu-0-slice-0"))))
        .isInstanceOf(PrepareResult.Started.class);
    assertThat(ledger.prepare(PrepareRequest.of(b, List.of("gpu-0-slice-1"))))
        .isInstanceOf(PrepareResult.Started.class);
    assertThat(ledger.prepare(PrepareRequest.of(c, List.of("gpu-0"))))
        .isInstanceOf(PrepareResult.Held.class);
    assertThat(ledger.snapshot().overConsumed(partitioned())).isEmpty();
  }

  @Test
  void withNoCountersDeclaredTheGpuAndItsSliceAreTwoDevicesAsToday() {
    var ledger = ledger(DeviceUse.WHOLE_DEVICES);
    ledger.prepare(PrepareRequest.of(a, List.of("gpu-0")));
    assertThat(ledger.prepare(PrepareRequest.of(b, List.of("gpu-0-slice-0"))))
        .isInstanceOf(PrepareResult.Started.class);
    // the same holdings judged with counters break I1, and the judge says which counter
    assertThat(ledger.snapshot().overConsumed(partitioned()))
        .hasValueSatisfying(v -> assertThat(v).contains("shares counter gpu-0/compute: 8 of 7"));
    assertThat(ledger.snapshot().doubleHeld()).isEmpty();
  }

  @Test
  void aReplicaAndItsWholeGpuAreOneGpuByTheirNamesWhateverTheSliceSays() {
    // The slice now relates nothing (every device whole): a naive agent that switched the GPU's
    // mode under a held claim. The names still say a replica is part of its GPU.
    var ledger = ledger(DeviceUse.WHOLE_DEVICES);
    ledger.prepare(PrepareRequest.of(a, List.of("gpu-0")));
    assertThat(ledger.prepare(PrepareRequest.of(b, List.of("gpu-0-ts-1"))))
        .isInstanceOfSatisfying(
            PrepareResult.Held.class,
            h -> {
              assertThat(h.device()).isEqualTo("gpu-0");
              assertThat(h.holder()).isEqualTo(a);
            });
    var other = ledger(DeviceUse.WHOLE_DEVICES);
    other.prepare(PrepareRequest.of(b, List.of("gpu-0-ts-1")));
    other.prepare(PrepareRequest.of(c, List.of("gpu-0-ts-2")));
    assertThat(other.prepare(PrepareRequest.of(a, List.of("gpu-0"))))
        .isInstanceOfSatisfying(
            PrepareResult.Held.class, h -> assertThat(h.device()).startsWith("gpu-0-ts-"));
    assertThat(other.prepare(PrepareRequest.of(a, List.of("gpu-1"))))
        .isInstanceOf(PrepareResult.Started.class);
  }
}
