package dev.quartermaster.api.validation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.meta.ApiObject;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Device classes of MIG slices, by profile or by attributes, and claims' requests that select
 * slices: one that no slice of a known GPU could ever meet is refused, naming the field and the
 * rule, rather than left to wait for ever.
 */
class MigClassRulesTest {
  private static ApiObject parse(String yaml) {
    return ObjectCodec.fromYaml(yaml).getFirst();
  }

  private static ApiObject migClass(String selector) {
    return parse(
        """
        kind: DeviceClass
        metadata: {name: some-slices}
        spec:
          class: mig
          selectors: [%s]
        """
            .formatted(selector));
  }

  private static List<String> fields(ApiObject o) {
    return ObjectValidator.validate(o).stream().map(Violation::field).toList();
  }

  @Test
  void classesByProfileOrByAttributesThatSomeSliceMeetsAreValid() {
    assertThat(fields(migClass("{attribute: profile, operator: In, values: [3g.71gb]}"))).isEmpty();
    assertThat(fields(migClass("{attribute: computeSlices, operator: Gte, values: ['2']}")))
        .isEmpty();
    assertThat(fields(migClass("{attribute: memory, operator: Gte, values: ['35000000000']}")))
        .isEmpty();
    // Not a capacity attribute: could match on some node.
    assertThat(fields(migClass("{attribute: parent, operator: In, values: [gpu-3]}"))).isEmpty();
  }

  /** As in Kubernetes, a device class's name is a DNS subdomain: a profile's label fits in it. */
  @Test
  void aClassAndARequestMayNameAProfileByItsLabel() {
    var cls =
        parse(
            """
            kind: DeviceClass
            metadata: {name: mig-3g.71gb}
            spec:
              class: mig
              selectors: [{attribute: profile, operator: In, values: [3g.71gb]}]
            """);
    assertThat(fields(cls)).isEmpty();
    var claim =
        parse(
            """
            kind: ResourceClaim
            metadata: {name: c}
            spec:
              requests: [{name: half, deviceClassName: mig-3g.71gb, count: 1}]
            """);
    assertThat(fields(claim)).isEmpty();
    assertThat(
            fields(
                parse(
                    "kind: ResourceClaim\nmetadata: {name: c.d}\nspec: {requests: [{name: r, deviceClassName: gpu, count: 1}]}")))
        .containsExactly("metadata.name");
  }

  @Test
  void aClassNoSliceCouldEverMeetIsRefusedNamingTheRule() {
    for (var never :
        List.of(
            "{attribute: profile, operator: In, values: [5g.99gb]}",
            "{attribute: computeSlices, operator: Gte, values: ['8']}",
            "{attribute: memory, operator: Gte, values: ['200000000000']}",
            "{attribute: memorySlices, operator: Lte, values: ['0']}")) {
      var violations = ObjectValidator.validate(migClass(never));
      assertThat(violations).extracting(Violation::field).containsExactly("spec.selectors");
      assertThat(violations.getFirst().rule())
          .contains("no MIG slice of a known GPU (H100-80GB, H200-141GB, B200-180GB)")
          .contains("3g.71gb");
    }
    // Each selector alone can be met, yet no slice meets both.
    assertThat(
            fields(
                migClass(
                    "{attribute: profile, operator: In, values: [1g.18gb]},"
                        + " {attribute: computeSlices, operator: Gte, values: ['2']}")))
        .containsExactly("spec.selectors");
  }

  @Test
  void aClassOfWholeGpusIsNotJudgedBySlices() {
    assertThat(
            fields(
                parse(
                    """
                    kind: DeviceClass
                    metadata: {name: big}
                    spec:
                      class: gpu
                      selectors: [{attribute: memory, operator: Gte, values: ['200000000000']}]
                    """)))
        .isEmpty();
  }

  @Test
  void aRequestSelectingSlicesNoneCouldMeetIsRefused() {
    var claim =
        parse(
            """
            kind: ResourceClaim
            metadata: {name: c}
            spec:
              requests:
              - {name: ok, deviceClassName: mig, count: 2, selectors: [{attribute: computeSlices, operator: Gte, values: ['3']}]}
              - {name: never, deviceClassName: mig, count: 1, selectors: [{attribute: computeSlices, operator: Gte, values: ['9']}]}
            """);
    assertThat(fields(claim)).containsExactly("spec.requests[1].selectors");
  }

  /**
   * A queue's quota counts MIG compute slices under {@code mig-compute-slices}: no class has it.
   */
  @Test
  void noClassTakesTheQuotaKeyOfComputeSlices() {
    var cls =
        parse(
            """
            kind: DeviceClass
            metadata: {name: mig-compute-slices}
            spec: {class: mig}
            """);
    assertThat(ObjectValidator.validate(cls))
        .extracting(Violation::toString)
        .containsExactly(
            "metadata.name: is the quota key of MIG compute slices (a queue's quota counts slices"
                + " by it); name the class otherwise");
  }
}
