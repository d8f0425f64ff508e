package dev.quartermaster.api.validation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.meta.Kinds;
import org.junit.jupiter.api.Test;

/** Shared counters on a slice: optional, and when given, each rule named by its field. */
class CounterRulesTest {
  private static DeviceSlice parse(String yaml) {
    return (DeviceSlice) ObjectCodec.fromYaml(yaml).getFirst();
  }

  @Test
  void aSliceWithoutCountersIsWhatItWasOnTheWire() {
    var s =
        parse(
            """
            kind: DeviceSlice
            metadata: {name: node-1}
            spec:
              node: node-1
              devices: [{name: gpu-0, class: gpu, health: Healthy}]
            """);
    assertThat(ObjectValidator.validate(s)).isEmpty();
    assertThat(new String(ObjectCodec.toJson(s))).doesNotContain("ounter");
  }

  @Test
  void partitionedGpuIsValid() {
    var s =
        parse(
            """
            kind: DeviceSlice
            metadata: {name: node-1}
            spec:
              node: node-1
              sharedCounters: [{name: gpu-0, counters: {compute: 7, memory: 8}}]
              devices:
              - {name: gpu-0, class: gpu, consumesCounters: [{counterSet: gpu-0, counters: {compute: 7, memory: 8}}]}
              - {name: gpu-0-mig-1g-0, class: gpu, consumesCounters: [{counterSet: gpu-0, counters: {compute: 1, memory: 1}}]}
            """);
    assertThat(ObjectValidator.validate(s)).isEmpty();
    assertThat(ObjectCodec.fromJson(ObjectCodec.toJson(s), Kinds.DEVICE_SLICE)).isEqualTo(s);
  }

  @Test
  void eachBrokenRuleNamesItsField() {
    var s =
        parse(
            """
            kind: DeviceSlice
            metadata: {name: other}
            spec:
              node: node-1
              sharedCounters: [{name: gpu-0, counters: {compute: 0}}]
              devices:
              - {name: gpu-0, class: gpu, consumesCounters: [{counterSet: gpu-9, counters: {compute: 1}}]}
              - {name: gpu-1, class: gpu, consumesCounters: [{counterSet: gpu-0, counters: {memory: 1, compute: 2}}]}
            """);
    assertThat(ObjectValidator.validate(s))
        .containsExactlyInAnyOrder(
            new Violation(
                "metadata.name",
                "must be spec.node (node-1) when the slice shares counters: the store judges a"
                    + " node's counters by the slice named after it"),
            new Violation("spec.sharedCounters[0].counters.compute", "must be at least 1"),
            new Violation(
                "spec.devices[0].consumesCounters[0].counterSet",
                "must name a counter set of spec.sharedCounters, not 'gpu-9'"),
            new Violation(
                "spec.devices[1].consumesCounters[0].counters.memory",
                "must be a counter of set gpu-0"),
            new Violation(
                "spec.devices[1].consumesCounters[0].counters.compute",
                "must be at most the set's 0"));
  }
}
