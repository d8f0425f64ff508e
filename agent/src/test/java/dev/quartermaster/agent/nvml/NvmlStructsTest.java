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
          .isEqualTo(new NvmlStructs.GiProfile(9, 3, 2, 71_424, "3g.71gb"));
    }
  }
}
