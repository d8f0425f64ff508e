package dev.quartermaster.agent.nvml;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.quartermaster.agent.nvml.NvmlLibrary.MissingSymbol;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * NVML's MIG calls ({@code nvml.h}, "Multi Instance GPU Management") as thin Java methods: mode,
 * GPU-instance profiles and placements, GPU and compute instances (create, list, find, destroy) and
 * the MIG device handles whose UUIDs CUDA sees. GPU and compute instance handles are opaque
 * pointers, as device handles are. What to do with them is {@code mig.NvmlMig}'s; this class only
 * crosses the border. Calls that answer "no such thing" return empty instead of throwing.
 */
@SuppressWarnings("restricted") // binding a native library is what this class is for
public final class NvmlMigFunctions {
  private final NvmlLibrary nvml;
  private final MethodHandle getMigMode;
  private final MethodHandle setMigMode;
  private final MethodHandle giProfileInfo;
  private final MethodHandle possiblePlacements;
  private final MethodHandle createGi;
  private final MethodHandle getGis;
  private final MethodHandle giById;
  private final MethodHandle giInfo;
  private final MethodHandle destroyGi;
  private final MethodHandle ciProfileInfo;
  private final MethodHandle createCi;
  private final MethodHandle getCis;
  private final MethodHandle ciById;
  private final MethodHandle ciInfo;
  private final MethodHandle destroyCi;
  private final MethodHandle maxMigDevices;
  private final MethodHandle migDeviceByIndex;
  private final MethodHandle migDeviceGi;
  private final MethodHandle migDeviceCi;

  NvmlMigFunctions(NvmlLibrary nvml, SymbolLookup lookup) throws MissingSymbol {
    this.nvml = nvml;
    var handleOut = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
    var handleIntOut = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS);
    var handleIntTwoOut = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, ADDRESS);
    var handleOnly = FunctionDescriptor.of(JAVA_INT, ADDRESS);
    getMigMode =
        NvmlLibrary.bind(
            lookup,
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS),
            "nvmlDeviceGetMigMode");
    setMigMode = NvmlLibrary.bind(lookup, handleIntOut, "nvmlDeviceSetMigMode");
    giProfileInfo = NvmlLibrary.bind(lookup, handleIntOut, "nvmlDeviceGetGpuInstanceProfileInfoV");
    possiblePlacements =
        NvmlLibrary.bind(
            lookup,
            handleIntTwoOut,
            "nvmlDeviceGetGpuInstancePossiblePlacements_v2",
            "nvmlDeviceGetGpuInstancePossiblePlacements");
    createGi =
        NvmlLibrary.bind(lookup, handleIntTwoOut, "nvmlDeviceCreateGpuInstanceWithPlacement");
    getGis = NvmlLibrary.bind(lookup, handleIntTwoOut, "nvmlDeviceGetGpuInstances");
    giById = NvmlLibrary.bind(lookup, handleIntOut, "nvmlDeviceGetGpuInstanceById");
    giInfo = NvmlLibrary.bind(lookup, handleOut, "nvmlGpuInstanceGetInfo");
    destroyGi = NvmlLibrary.bind(lookup, handleOnly, "nvmlGpuInstanceDestroy");
    ciProfileInfo =
        NvmlLibrary.bind(
            lookup,
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS),
            "nvmlGpuInstanceGetComputeInstanceProfileInfo");
    createCi = NvmlLibrary.bind(lookup, handleIntOut, "nvmlGpuInstanceCreateComputeInstance");
    getCis = NvmlLibrary.bind(lookup, handleIntTwoOut, "nvmlGpuInstanceGetComputeInstances");
    ciById = NvmlLibrary.bind(lookup, handleIntOut, "nvmlGpuInstanceGetComputeInstanceById");
    ciInfo =
        NvmlLibrary.bind(
            lookup, handleOut, "nvmlComputeInstanceGetInfo_v2", "nvmlComputeInstanceGetInfo");
    destroyCi = NvmlLibrary.bind(lookup, handleOnly, "nvmlComputeInstanceDestroy");
    maxMigDevices = NvmlLibrary.bind(lookup, handleOut, "nvmlDeviceGetMaxMigDeviceCount");
    migDeviceByIndex =
        NvmlLibrary.bind(lookup, handleIntOut, "nvmlDeviceGetMigDeviceHandleByIndex");
    migDeviceGi = NvmlLibrary.bind(lookup, handleOut, "nvmlDeviceGetGpuInstanceId");
    migDeviceCi = NvmlLibrary.bind(lookup, handleOut, "nvmlDeviceGetComputeInstanceId");
  }

  /** {@code nvmlDeviceGetMigMode}; NOT_SUPPORTED on a GPU without MIG. */
  public NvmlMigMode migMode(MemorySegment device) throws NvmlException {
    try (var local = Arena.ofConfined()) {
      var current = local.allocate(JAVA_INT);
      var pending = local.allocate(JAVA_INT);
      nvml.check(
          "nvmlDeviceGetMigMode",
          NvmlLibrary.call(() -> (int) getMigMode.invokeExact(device, current, pending)));
      return new NvmlMigMode(current.get(JAVA_INT, 0) == 1, pending.get(JAVA_INT, 0) == 1);
    }
  }

  /**
   * {@code nvmlDeviceSetMigMode}: throws what the call refused; returns the activation status,
   * which says whether the change is in force ({@link NvmlReturn#SUCCESS}) or why not ({@code
   * IN_USE}: the GPU is not idle; {@code RESET_REQUIRED}: it waits for a reset).
   */
  public int setMigMode(MemorySegment device, boolean on) throws NvmlException {
    try (var local = Arena.ofConfined()) {
      var activation = local.allocate(JAVA_INT);
      int mode = on ? 1 : 0;
      nvml.check(
          "nvmlDeviceSetMigMode",
          NvmlLibrary.call(() -> (int) setMigMode.invokeExact(device, mode, activation)));
      return activation.get(JAVA_INT, 0);
    }
  }

  /**
   * {@code nvmlDeviceGetGpuInstanceProfileInfoV} for profile index {@code profile}
   * (NVML_GPU_INSTANCE_PROFILE_*); empty where this GPU or driver has no such profile.
   */
  public Optional<NvmlGiProfile> giProfile(MemorySegment device, int profile) throws NvmlException {
    try (var local = Arena.ofConfined()) {
      var info = local.allocate(NvmlStructs.PROFILE_INFO_V2);
      info.set(JAVA_INT, 0, NvmlStructs.PROFILE_INFO_V2_VERSION);
      int rc = NvmlLibrary.call(() -> (int) giProfileInfo.invokeExact(device, profile, info));
      if (absent(rc)) {
        return Optional.empty();
      }
      nvml.check("nvmlDeviceGetGpuInstanceProfileInfoV(" + profile + ")", rc);
      return Optional.of(NvmlStructs.giProfile(info));
    }
  }

  /**
   * Where profile {@code profileId} may be created: {@code
   * nvmlDeviceGetGpuInstancePossiblePlacements_v2}.
   */
  public List<NvmlPlacement> possiblePlacements(MemorySegment device, int profileId)
      throws NvmlException {
    try (var local = Arena.ofConfined()) {
      var count = local.allocate(JAVA_INT);
      var function = "nvmlDeviceGetGpuInstancePossiblePlacements_v2(" + profileId + ")";
      // NULL first asks how many; then a buffer that holds them.
      nvml.check(
          function,
          NvmlLibrary.call(
              () ->
                  (int)
                      possiblePlacements.invokeExact(
                          device, profileId, MemorySegment.NULL, count)));
      var array = local.allocate(NvmlStructs.PLACEMENT, Math.max(1, count.get(JAVA_INT, 0)));
      nvml.check(
          function,
          NvmlLibrary.call(
              () -> (int) possiblePlacements.invokeExact(device, profileId, array, count)));
      return NvmlStructs.placements(array, count.get(JAVA_INT, 0));
    }
  }

  /** {@code nvmlDeviceCreateGpuInstanceWithPlacement}: the new GPU instance's handle. */
  public MemorySegment createGpuInstance(
      MemorySegment device, int profileId, NvmlPlacement placement) throws NvmlException {
    try (var local = Arena.ofConfined()) {
      var where = local.allocate(NvmlStructs.PLACEMENT);
      where.set(JAVA_INT, 0, placement.start());
      where.set(JAVA_INT, 4, placement.size());
      var out = local.allocate(ADDRESS);
      nvml.check(
          "nvmlDeviceCreateGpuInstanceWithPlacement",
          NvmlLibrary.call(() -> (int) createGi.invokeExact(device, profileId, where, out)));
      return out.get(ADDRESS, 0);
    }
  }

  /** The GPU instances of profile {@code profileId}, at most {@code max} (its instance count). */
  public List<MemorySegment> gpuInstances(MemorySegment device, int profileId, int max)
      throws NvmlException {
    return list("nvmlDeviceGetGpuInstances", getGis, device, profileId, max);
  }

  /** {@code nvmlDeviceGetGpuInstanceById}; empty when no GPU instance has that id. */
  public Optional<MemorySegment> gpuInstanceById(MemorySegment device, int id)
      throws NvmlException {
    return lookUp("nvmlDeviceGetGpuInstanceById", giById, device, id);
  }

  public NvmlGiInfo gpuInstanceInfo(MemorySegment gpuInstance) throws NvmlException {
    try (var local = Arena.ofConfined()) {
      var info = local.allocate(NvmlStructs.GI_INFO);
      nvml.check(
          "nvmlGpuInstanceGetInfo",
          NvmlLibrary.call(() -> (int) giInfo.invokeExact(gpuInstance, info)));
      return NvmlStructs.giInfo(info);
    }
  }

  /** {@code nvmlGpuInstanceDestroy}; IN_USE while a compute instance or a process is in it. */
  public void destroyGpuInstance(MemorySegment gpuInstance) throws NvmlException {
    nvml.check(
        "nvmlGpuInstanceDestroy", NvmlLibrary.call(() -> (int) destroyGi.invokeExact(gpuInstance)));
  }

  /**
   * Compute instance profile index {@code profile} (NVML_COMPUTE_INSTANCE_PROFILE_*) inside {@code
   * gpuInstance}, engines shared; empty where it has none such.
   */
  public Optional<NvmlCiProfile> ciProfile(MemorySegment gpuInstance, int profile)
      throws NvmlException {
    try (var local = Arena.ofConfined()) {
      var info = local.allocate(NvmlStructs.CI_PROFILE_INFO);
      int shared = 0; // NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED
      int rc =
          NvmlLibrary.call(
              () -> (int) ciProfileInfo.invokeExact(gpuInstance, profile, shared, info));
      if (absent(rc)) {
        return Optional.empty();
      }
      nvml.check("nvmlGpuInstanceGetComputeInstanceProfileInfo(" + profile + ")", rc);
      return Optional.of(NvmlStructs.ciProfile(info));
    }
  }

  public MemorySegment createComputeInstance(MemorySegment gpuInstance, int profileId)
      throws NvmlException {
    try (var local = Arena.ofConfined()) {
      var out = local.allocate(ADDRESS);
      nvml.check(
          "nvmlGpuInstanceCreateComputeInstance",
          NvmlLibrary.call(() -> (int) createCi.invokeExact(gpuInstance, profileId, out)));
      return out.get(ADDRESS, 0);
    }
  }

  /**
   * The compute instances of profile {@code profileId} in {@code gpuInstance}, at most {@code max}.
   */
  public List<MemorySegment> computeInstances(MemorySegment gpuInstance, int profileId, int max)
      throws NvmlException {
    return list("nvmlGpuInstanceGetComputeInstances", getCis, gpuInstance, profileId, max);
  }

  public Optional<MemorySegment> computeInstanceById(MemorySegment gpuInstance, int id)
      throws NvmlException {
    return lookUp("nvmlGpuInstanceGetComputeInstanceById", ciById, gpuInstance, id);
  }

  /** The compute instance's id inside its GPU instance ({@code nvmlComputeInstanceGetInfo_v2}). */
  public int computeInstanceId(MemorySegment computeInstance) throws NvmlException {
    try (var local = Arena.ofConfined()) {
      var info = local.allocate(NvmlStructs.CI_INFO);
      nvml.check(
          "nvmlComputeInstanceGetInfo_v2",
          NvmlLibrary.call(() -> (int) ciInfo.invokeExact(computeInstance, info)));
      return NvmlStructs.ciId(info);
    }
  }

  /** {@code nvmlComputeInstanceDestroy}; IN_USE while a process has it open. */
  public void destroyComputeInstance(MemorySegment computeInstance) throws NvmlException {
    nvml.check(
        "nvmlComputeInstanceDestroy",
        NvmlLibrary.call(() -> (int) destroyCi.invokeExact(computeInstance)));
  }

  /** How many MIG devices the GPU can have ({@code nvmlDeviceGetMaxMigDeviceCount}). */
  public int maxMigDevices(MemorySegment device) throws NvmlException {
    return intOut("nvmlDeviceGetMaxMigDeviceCount", maxMigDevices, device);
  }

  /** The MIG device at {@code index} under {@code device}; empty where none is. */
  public Optional<MemorySegment> migDevice(MemorySegment device, int index) throws NvmlException {
    return lookUp("nvmlDeviceGetMigDeviceHandleByIndex", migDeviceByIndex, device, index);
  }

  /** The GPU instance id of MIG device {@code migDevice}. */
  public int migDeviceGpuInstance(MemorySegment migDevice) throws NvmlException {
    return intOut("nvmlDeviceGetGpuInstanceId", migDeviceGi, migDevice);
  }

  /** The compute instance id of MIG device {@code migDevice}. */
  public int migDeviceComputeInstance(MemorySegment migDevice) throws NvmlException {
    return intOut("nvmlDeviceGetComputeInstanceId", migDeviceCi, migDevice);
  }

  /** NVML's answer for "there is no such profile, instance or device". */
  private static boolean absent(int rc) {
    return rc == NvmlReturn.NOT_SUPPORTED
        || rc == NvmlReturn.NOT_FOUND
        || rc == NvmlReturn.INVALID_ARGUMENT;
  }

  private Optional<MemorySegment> lookUp(
      String function, MethodHandle handle, MemorySegment parent, int key) throws NvmlException {
    try (var local = Arena.ofConfined()) {
      var out = local.allocate(ADDRESS);
      int rc = NvmlLibrary.call(() -> (int) handle.invokeExact(parent, key, out));
      if (rc == NvmlReturn.NOT_FOUND || rc == NvmlReturn.INVALID_ARGUMENT) {
        return Optional.empty();
      }
      nvml.check(function + "(" + key + ")", rc);
      return Optional.of(out.get(ADDRESS, 0));
    }
  }

  private int intOut(String function, MethodHandle handle, MemorySegment of) throws NvmlException {
    try (var local = Arena.ofConfined()) {
      var out = local.allocate(JAVA_INT);
      nvml.check(function, NvmlLibrary.call(() -> (int) handle.invokeExact(of, out)));
      return out.get(JAVA_INT, 0);
    }
  }

  /** A list call: {@code (parent, profileId, handles[max], in/out count)}. */
  private List<MemorySegment> list(
      String function, MethodHandle handle, MemorySegment parent, int profileId, int max)
      throws NvmlException {
    try (var local = Arena.ofConfined()) {
      var array = local.allocate(ADDRESS, Math.max(1, max));
      var count = local.allocate(JAVA_INT);
      count.set(JAVA_INT, 0, max);
      nvml.check(
          function + "(" + profileId + ")",
          NvmlLibrary.call(() -> (int) handle.invokeExact(parent, profileId, array, count)));
      var out = new ArrayList<MemorySegment>();
      for (int i = 0; i < Math.min(max, count.get(JAVA_INT, 0)); i++) {
        out.add(array.getAtIndex(ADDRESS, i));
      }
      return out;
    }
  }
}
