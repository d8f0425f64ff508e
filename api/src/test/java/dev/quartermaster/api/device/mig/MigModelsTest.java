package dev.quartermaster.api.device.mig;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MigModelsTest {
  @Test
  void productNamesAsNvmlReportsThemMapToTheirGeometry() {
    assertThat(MigModels.forProduct("NVIDIA H100 80GB HBM3")).contains(MigGeometry.H100_80GB);
    assertThat(MigModels.forProduct("NVIDIA H100 PCIe")).contains(MigGeometry.H100_80GB);
    assertThat(MigModels.forProduct("NVIDIA H200")).contains(MigGeometry.H200_141GB);
    assertThat(MigModels.forProduct(MigModels.H200_NAME)).contains(MigGeometry.H200_141GB);
    assertThat(MigModels.forProduct("NVIDIA B200")).contains(MigGeometry.B200_180GB);
  }

  @Test
  void productsWithAnotherLayoutHaveNoKnownGeometry() {
    assertThat(MigModels.forProduct("NVIDIA H100 NVL")).isEmpty();
    assertThat(MigModels.forProduct("NVIDIA A10")).isEmpty();
    assertThat(MigModels.forProduct("H100")).isEmpty();
  }
}
