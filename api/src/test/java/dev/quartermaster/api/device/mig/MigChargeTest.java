package dev.quartermaster.api.device.mig;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceClassSpec;
import dev.quartermaster.api.device.DeviceClassStatus;
import dev.quartermaster.api.device.DeviceSelector;
import dev.quartermaster.api.device.DeviceSelector.Operator;
import dev.quartermaster.api.meta.ObjectMeta;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a device of a class costs a queue that counts MIG compute slices: exactly its profile's for
 * a class by profile, the largest slice it may be given for one by attributes — never less than the
 * allocator may hand it.
 */
class MigChargeTest {
  private static DeviceClassSpec mig(DeviceSelector... selectors) {
    return new DeviceClassSpec(MigGeometry.DEVICE_CLASS, List.of(selectors));
  }

  @Test
  void aClassByProfileCostsItsProfilesComputeSlices() {
    assertThat(
            MigCharge.computeSlices(
                mig(new DeviceSelector(MigGeometry.PROFILE, Operator.In, List.of("3g.71gb")))))
        .isEqualTo(3);
    assertThat(
            MigCharge.computeSlices(
                mig(new DeviceSelector(MigGeometry.PROFILE, Operator.In, List.of("1g.10gb")))))
        .as("an H100's profile")
        .isEqualTo(1);
    assertThat(
            MigCharge.computeSlices(
                mig(new DeviceSelector(MigGeometry.COMPUTE_SLICES, Operator.In, List.of("2")))))
        .isEqualTo(2);
  }

  @Test
  void aClassByAttributesCostsTheLargestSliceItMayGet() {
    assertThat(
            MigCharge.computeSlices(
                mig(new DeviceSelector(MigGeometry.COMPUTE_SLICES, Operator.Gte, List.of("2")))))
        .as("at least 2 sevenths may be given all 7")
        .isEqualTo(7);
    assertThat(
            MigCharge.computeSlices(
                mig(
                    new DeviceSelector(MigGeometry.COMPUTE_SLICES, Operator.Gte, List.of("2")),
                    new DeviceSelector(MigGeometry.COMPUTE_SLICES, Operator.Lte, List.of("3")))))
        .isEqualTo(3);
    assertThat(MigCharge.computeSlices(mig())).as("any slice").isEqualTo(7);
  }

  @Test
  void aClassOfNoSliceCostsNothing() {
    assertThat(MigCharge.computeSlices(new DeviceClassSpec("gpu", List.of()))).isZero();
    assertThat(
            MigCharge.computeSlices(
                mig(new DeviceSelector(MigGeometry.PROFILE, Operator.In, List.of("9g.1tb")))))
        .isZero();
    var costs =
        MigCharge.of(
            List.of(
                new DeviceClass(
                    ObjectMeta.named("mig-3g.71gb"),
                    mig(new DeviceSelector(MigGeometry.PROFILE, Operator.In, List.of("3g.71gb"))),
                    DeviceClassStatus.EMPTY)));
    assertThat(costs.applyAsInt("mig-3g.71gb")).isEqualTo(3);
    assertThat(costs.applyAsInt("gpu")).isZero();
  }
}
