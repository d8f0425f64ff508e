package dev.quartermaster.agent.nvml;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.nio.charset.StandardCharsets;

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

  /**
   * A GPU instance profile as NVML describes it; its name drifts between drivers, its slices not.
   */
  record GiProfile(int id, int sliceCount, int instanceCount, long memoryMb, String name) {}

  static GiProfile giProfile(MemorySegment info) {
    return new GiProfile(
        info.get(JAVA_INT, 4),
        info.get(JAVA_INT, 12),
        info.get(JAVA_INT, 16),
        info.get(JAVA_LONG, 48),
        cString(info, 56, STRING_BUFFER));
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
