package dev.quartermaster.agent.nvml;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The NVML structs we read, laid out for LP64 Linux as in NVIDIA's {@code nvml.h} (offsets worked
 * out from the header; see reference/nvidia-device-plugin.md 5.2).
 */
final class NvmlStructs {
  /** {@code nvmlMemory_t}: total, free, used. */
  static final StructLayout MEMORY =
      MemoryLayout.structLayout(
          JAVA_LONG.withName("total"), JAVA_LONG.withName("free"), JAVA_LONG.withName("used"));

  /** {@code nvmlEventData_t}. */
  static final StructLayout EVENT_DATA =
      MemoryLayout.structLayout(
          ADDRESS.withName("device"),
          JAVA_LONG.withName("eventType"),
          JAVA_LONG.withName("eventData"),
          JAVA_INT.withName("gpuInstanceId"),
          JAVA_INT.withName("computeInstanceId"));

  /**
   * {@code nvmlPciInfo_t}: busIdLegacy[16], domain, bus, device, pciDeviceId, pciSubSystemId,
   * busId[32].
   */
  static final long PCI_INFO_SIZE = 68;

  static final long PCI_BUS_ID_OFFSET = 36;
  static final int PCI_BUS_ID_LENGTH = 32;

  /** NVML_DEVICE_UUID_V2_BUFFER_SIZE and NVML_DEVICE_NAME_V2_BUFFER_SIZE. */
  static final int STRING_BUFFER = 96;

  /** {@code nvmlGpuInstancePlacement_t}: the first memory slice and how many. */
  static final StructLayout PLACEMENT =
      MemoryLayout.structLayout(JAVA_INT.withName("start"), JAVA_INT.withName("size"));

  /**
   * {@code nvmlGpuInstanceProfileInfo_v2_t}: eleven unsigned ints, four bytes of padding so that
   * memorySizeMB is 8-aligned, then the name.
   */
  static final StructLayout PROFILE_INFO_V2 =
      MemoryLayout.structLayout(
          JAVA_INT.withName("version"),
          JAVA_INT.withName("id"),
          JAVA_INT.withName("isP2pSupported"),
          JAVA_INT.withName("sliceCount"),
          JAVA_INT.withName("instanceCount"),
          JAVA_INT.withName("multiprocessorCount"),
          JAVA_INT.withName("copyEngineCount"),
          JAVA_INT.withName("decoderCount"),
          JAVA_INT.withName("encoderCount"),
          JAVA_INT.withName("jpegCount"),
          JAVA_INT.withName("ofaCount"),
          MemoryLayout.paddingLayout(4),
          JAVA_LONG.withName("memorySizeMB"),
          MemoryLayout.sequenceLayout(STRING_BUFFER, java.lang.foreign.ValueLayout.JAVA_BYTE)
              .withName("name"));

  /**
   * NVML_STRUCT_VERSION(GpuInstanceProfileInfo, 2): the struct's size, version 2 in the top byte.
   */
  static final int PROFILE_INFO_V2_VERSION = (int) PROFILE_INFO_V2.byteSize() | (2 << 24);

  static NvmlGiProfile giProfile(MemorySegment info) {
    return new NvmlGiProfile(
        info.get(JAVA_INT, 4),
        info.get(JAVA_INT, 12),
        info.get(JAVA_INT, 16),
        info.get(JAVA_LONG, 48),
        cString(info, 56, STRING_BUFFER));
  }

  /** {@code count} placements, one {@link #PLACEMENT} after another. */
  static List<NvmlPlacement> placements(MemorySegment array, int count) {
    var out = new ArrayList<NvmlPlacement>();
    for (int i = 0; i < count; i++) {
      long at = i * PLACEMENT.byteSize();
      out.add(new NvmlPlacement(array.get(JAVA_INT, at), array.get(JAVA_INT, at + 4)));
    }
    return out;
  }

  /** {@code nvmlGpuInstanceInfo_t}: the parent's handle, id, profileId, placement. */
  static final StructLayout GI_INFO =
      MemoryLayout.structLayout(
          ADDRESS.withName("device"),
          JAVA_INT.withName("id"),
          JAVA_INT.withName("profileId"),
          PLACEMENT.withName("placement"));

  static NvmlGiInfo giInfo(MemorySegment info) {
    return new NvmlGiInfo(
        info.get(JAVA_INT, 8),
        info.get(JAVA_INT, 12),
        new NvmlPlacement(info.get(JAVA_INT, 16), info.get(JAVA_INT, 20)));
  }

  /**
   * {@code nvmlComputeInstanceProfileInfo_t} (the unversioned one, in every MIG driver): id,
   * sliceCount, instanceCount, then six engine counts we do not read.
   */
  static final StructLayout CI_PROFILE_INFO =
      MemoryLayout.structLayout(
          JAVA_INT.withName("id"),
          JAVA_INT.withName("sliceCount"),
          JAVA_INT.withName("instanceCount"),
          MemoryLayout.sequenceLayout(6, JAVA_INT).withName("counts"));

  static NvmlCiProfile ciProfile(MemorySegment info) {
    return new NvmlCiProfile(info.get(JAVA_INT, 0), info.get(JAVA_INT, 4), info.get(JAVA_INT, 8));
  }

  /**
   * {@code nvmlComputeInstanceInfo_t}: the parent's and the GPU instance's handles, id, profileId,
   * its placement in compute slices.
   */
  static final StructLayout CI_INFO =
      MemoryLayout.structLayout(
          ADDRESS.withName("device"),
          ADDRESS.withName("gpuInstance"),
          JAVA_INT.withName("id"),
          JAVA_INT.withName("profileId"),
          PLACEMENT.withName("placement"));

  static int ciId(MemorySegment info) {
    return info.get(JAVA_INT, 16);
  }

  private NvmlStructs() {}

  static long memoryTotal(MemorySegment memory) {
    return memory.get(JAVA_LONG, 0);
  }

  static NvmlEvent event(MemorySegment data) {
    return new NvmlEvent(
        data.get(ADDRESS, 0).address(),
        data.get(JAVA_LONG, 8),
        data.get(JAVA_LONG, 16),
        data.get(JAVA_INT, 24),
        data.get(JAVA_INT, 28));
  }

  /** A NUL-terminated string in a buffer of {@code length} bytes (never reads past it). */
  static String cString(MemorySegment buffer, long offset, int length) {
    var bytes = buffer.asSlice(offset, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
    int end = 0;
    while (end < bytes.length && bytes[end] != 0) {
      end++;
    }
    return new String(bytes, 0, end, StandardCharsets.UTF_8);
  }
}
