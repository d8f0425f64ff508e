package dev.quartermaster.agent.nvml;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** The MIG structs' layouts, as nvml.h lays them out on LP64 Linux (no GPU needed). */
class NvmlStructsTest {

  @Test
  void theProfileInfoV2StructIsLaidOutAsTheHeaderSays() {
    var l = NvmlStructs.PROFILE_INFO_V2;
    assertThat(l.byteOffset(PathElement.groupElement("sliceCount"))).isEqualTo(12);
    assertThat(l.byteOffset(PathElement.groupElement("ofaCount"))).isEqualTo(40);
    assertThat(l.byteOffset(PathElement.groupElement("memorySizeMB"))).isEqualTo(48);
    assertThat(l.byteOffset(PathElement.groupElement("name"))).isEqualTo(56);
    assertThat(l.byteSize()).isEqualTo(152);
    assertThat(NvmlStructs.PROFILE_INFO_V2_VERSION).isEqualTo(0x0200_0098);
    assertThat(NvmlStructs.PLACEMENT.byteSize()).isEqualTo(8);
  }

  @Test
  void aProfileIsReadFromItsFields() {
    try (var arena = Arena.ofConfined()) {
      var info = arena.allocate(NvmlStructs.PROFILE_INFO_V2);
      info.set(ValueLayout.JAVA_INT, 4, 9);
      info.set(ValueLayout.JAVA_INT, 12, 3);
      info.set(ValueLayout.JAVA_INT, 16, 2);
      info.set(ValueLayout.JAVA_LONG, 48, 71_424);
      info.setString(56, "3g.71gb");
      assertThat(NvmlStructs.giProfile(info))
          .isEqualTo(new NvmlGiProfile(9, 3, 2, 71_424, "3g.71gb"));
    }
  }

  @Test
  void theInstanceStructsAreLaidOutAsTheHeaderSays() {
    var gi = NvmlStructs.GI_INFO;
    assertThat(gi.byteOffset(PathElement.groupElement("id"))).isEqualTo(8);
    assertThat(gi.byteOffset(PathElement.groupElement("placement"))).isEqualTo(16);
    assertThat(gi.byteSize()).isEqualTo(24);
    var ci = NvmlStructs.CI_INFO;
    assertThat(ci.byteOffset(PathElement.groupElement("id"))).isEqualTo(16);
    assertThat(ci.byteSize()).isEqualTo(32);
    assertThat(NvmlStructs.CI_PROFILE_INFO.byteSize()).isEqualTo(36);
  }

  @Test
  void placementsInstancesAndComputeProfilesAreReadFromTheirFields() {
    try (var arena = Arena.ofConfined()) {
      var array = arena.allocate(NvmlStructs.PLACEMENT, 2);
      array.setAtIndex(ValueLayout.JAVA_INT, 0, 0);
      array.setAtIndex(ValueLayout.JAVA_INT, 1, 4);
      array.setAtIndex(ValueLayout.JAVA_INT, 2, 4);
      array.setAtIndex(ValueLayout.JAVA_INT, 3, 4);
      assertThat(NvmlStructs.placements(array, 2))
          .containsExactly(new NvmlPlacement(0, 4), new NvmlPlacement(4, 4));

      var gi = arena.allocate(NvmlStructs.GI_INFO);
      gi.set(ValueLayout.ADDRESS, 0, gi); // the parent's handle: any pointer
      gi.set(ValueLayout.JAVA_INT, 8, 5);
      gi.set(ValueLayout.JAVA_INT, 12, 9);
      gi.set(ValueLayout.JAVA_INT, 16, 6);
      gi.set(ValueLayout.JAVA_INT, 20, 2);
      assertThat(NvmlStructs.giInfo(gi)).isEqualTo(new NvmlGiInfo(5, 9, new NvmlPlacement(6, 2)));

      var ciProfile = arena.allocate(NvmlStructs.CI_PROFILE_INFO);
      ciProfile.set(ValueLayout.JAVA_INT, 0, 2);
      ciProfile.set(ValueLayout.JAVA_INT, 4, 3);
      ciProfile.set(ValueLayout.JAVA_INT, 8, 1);
      assertThat(NvmlStructs.ciProfile(ciProfile)).isEqualTo(new NvmlCiProfile(2, 3, 1));

      var ci = arena.allocate(NvmlStructs.CI_INFO);
      ci.set(ValueLayout.JAVA_INT, 16, 7);
      ci.set(ValueLayout.JAVA_INT, 20, 2);
      assertThat(NvmlStructs.ciId(ci)).isEqualTo(7);
    }
  }
}
