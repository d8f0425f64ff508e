package dev.quartermaster.agent.mig;

import dev.quartermaster.agent.discovery.VerifiedNode;
import dev.quartermaster.agent.nvml.NvmlException;
import dev.quartermaster.agent.nvml.NvmlLibrary;
import dev.quartermaster.agent.nvml.NvmlLoad;
import dev.quartermaster.agent.nvml.NvmlMigFunctions;
import dev.quartermaster.agent.nvml.NvmlMigMode;
import dev.quartermaster.agent.nvml.NvmlPlacement;
import dev.quartermaster.agent.nvml.NvmlReturn;
import dev.quartermaster.api.device.mig.MigPlacement;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * MIG on a real GPU, through NVML ({@link NvmlMigFunctions}), keeping {@link SimulatedMig}'s
 * contract: an instance is a GPU instance at a placement with one compute instance filling it;
 * overlap is refused {@code InsufficientResources}, a destroy or mode change while busy {@code
 * InUse}, and every refusal names the GPU, the profile and the placement. NVML is initialized once,
 * at {@link #open}; handles are looked up afresh in every call (a mode change may reset the GPU).
 *
 * <p>A GPU instance without a compute instance is the trace of a create cut short (a crash between
 * the two calls): it serves nothing and has no MIG device, so {@link #instances} leaves it out, a
 * {@link #create} over its memory slices destroys it first, and so does switching MIG off.
 */
public final class NvmlMig implements MigControl, AutoCloseable {
  /** Profile indexes asked; a driver refuses those past its last (12.x headers have 10). */
  static final int GI_PROFILE_INDEXES = 32;

  static final int CI_PROFILE_INDEXES = 16;

  private final NvmlLibrary nvml;
  private final NvmlMigFunctions mig;
  private final Path root;

  private NvmlMig(NvmlLibrary nvml, NvmlMigFunctions mig, Path root) {
    this.nvml = nvml;
    this.mig = mig;
    this.root = root;
  }

  /**
   * Loads and initializes NVML for MIG, device nodes and {@code /proc} under {@code root}; refused
   * ({@code NotSupported}) with the reason where the library, its init or its MIG calls are
   * missing.
   */
  public static NvmlMig open(Supplier<NvmlLoad> loader, Path root) throws MigRefusedException {
    var library =
        switch (loader.get()) {
          case NvmlLoad.Loaded l -> l.library();
          case NvmlLoad.Unavailable u ->
              throw new MigRefusedException(MigRefusedException.Refusal.NotSupported, u.reason());
        };
    try {
      library.init();
    } catch (NvmlException e) {
      library.close();
      throw MigRefusedException.of(e, "initializing NVML for MIG");
    }
    try {
      return new NvmlMig(library, library.mig(), root);
    } catch (NvmlException e) {
      close(library);
      throw MigRefusedException.of(e, "binding NVML's MIG calls");
    }
  }

  /** The indexes of the GPUs whose MIG mode NVML can read: those that have MIG. */
  public synchronized List<Integer> capableGpus() throws MigRefusedException {
    var out = new ArrayList<Integer>();
    try {
      for (int i = 0; i < nvml.deviceCount(); i++) {
        if (mode(nvml.handleByIndex(i)).isPresent()) {
          out.add(i);
        }
      }
    } catch (NvmlException e) {
      throw MigRefusedException.of(e, "listing the GPUs with MIG");
    }
    return out;
  }

  /** NVML's product name of GPU {@code gpu} ({@code NVIDIA H200}): what {@code MigModels} reads. */
  public synchronized String productName(int gpu) throws MigRefusedException {
    try {
      return nvml.deviceName(nvml.handleByIndex(gpu));
    } catch (NvmlException e) {
      throw MigRefusedException.of(e, "gpu " + gpu + ": reading its name");
    }
  }

  /** The current and pending MIG mode of GPU {@code gpu}; refused on a GPU without MIG. */
  public synchronized NvmlMigMode mode(int gpu) throws MigRefusedException {
    try {
      return mig.migMode(nvml.handleByIndex(gpu));
    } catch (NvmlException e) {
      throw MigRefusedException.of(e, gpuText(gpu) + ": reading its MIG mode");
    }
  }

  /** The GPU-instance profiles NVML offers on GPU {@code gpu} now (none while MIG is off). */
  public synchronized NvmlMigProfiles profiles(int gpu) throws MigRefusedException {
    try {
      return profiles(nvml.handleByIndex(gpu));
    } catch (NvmlException e) {
      throw MigRefusedException.of(e, gpuText(gpu) + ": reading its MIG profiles");
    }
  }

  @Override
  public synchronized boolean enabled(int gpu) throws MigRefusedException {
    try {
      return mode(nvml.handleByIndex(gpu)).map(NvmlMigMode::current).orElse(false);
    } catch (NvmlException e) {
      throw MigRefusedException.of(e, gpuText(gpu) + ": reading its MIG mode");
    }
  }

  @Override
  public synchronized void setEnabled(int gpu, boolean on) throws MigRefusedException {
    var attempt = gpuText(gpu) + ": switching MIG " + (on ? "on" : "off");
    try {
      var device = nvml.handleByIndex(gpu);
      var before = mig.migMode(device);
      if (before.current() == on && before.pending() == on) {
        return;
      }
      if (!on && before.current()) {
        destroyHalfMade(device, profiles(device), -1);
      }
      int activation = mig.setMigMode(device, on);
      if (activation != NvmlReturn.SUCCESS && activation != NvmlReturn.RESET_REQUIRED) {
        throw MigRefusedException.of(
            new NvmlException(
                "nvmlDeviceSetMigMode (activation)", activation, nvml.errorString(activation)),
            attempt);
      }
      var after = mig.migMode(nvml.handleByIndex(gpu));
      if (after.current() != on) {
        throw new MigRefusedException(
            MigRefusedException.Refusal.ResetRequired,
            attempt
                + ": the change is pending (current "
                + (after.current() ? "on" : "off")
                + ", pending "
                + (after.pending() ? "on" : "off")
                + "); it takes effect after a GPU reset (nvidia-smi -r -i "
                + gpu
                + "), which the agent does not do");
      }
    } catch (NvmlException e) {
      throw MigRefusedException.of(e, attempt);
    }
  }

  @Override
  public synchronized List<LiveInstance> instances(MigGpu gpu) throws MigRefusedException {
    try {
      var device = nvml.handleByIndex(gpu.index());
      if (!mode(device).map(NvmlMigMode::current).orElse(false)) {
        return List.of();
      }
      var profiles = profiles(device);
      var uuids = migDeviceUuids(device);
      var files = accessFiles();
      int minor = nvml.minorNumber(device);
      var out = new ArrayList<LiveInstance>();
      for (var p : profiles.profiles()) {
        for (var gi : mig.gpuInstances(device, p.info().id(), p.info().instanceCount())) {
          var info = mig.gpuInstanceInfo(gi);
          var placement = profiles.placement(gpu.geometry(), info.profileId(), info.placement());
          var ci = computeInstanceId(gi);
          var uuid = ci.flatMap(c -> Optional.ofNullable(uuids.get(key(info.id(), c))));
          if (placement.isPresent() && ci.isPresent() && uuid.isPresent()) {
            out.add(
                instance(
                    gpu.index(), placement.get(), info.id(), ci.get(), uuid.get(), minor, files));
          }
        }
      }
      out.sort(Comparator.comparingInt((LiveInstance i) -> i.placement().start()));
      return out;
    } catch (NvmlException e) {
      throw MigRefusedException.of(e, gpuText(gpu.index()) + ": listing its MIG instances");
    }
  }

  @Override
  public synchronized LiveInstance create(MigGpu gpu, MigPlacement placement)
      throws MigRefusedException {
    var attempt = gpuText(gpu.index()) + ": creating " + placement;
    try {
      var device = nvml.handleByIndex(gpu.index());
      if (!mode(device).map(NvmlMigMode::current).orElse(false)) {
        throw new MigRefusedException(
            MigRefusedException.Refusal.NotSupported, attempt + ": MIG mode is off");
      }
      var profiles = profiles(device);
      var profile =
          profiles
              .serving(placement.profile())
              .orElseThrow(() -> noProfile(attempt, placement, profiles));
      var where =
          profile.placements().stream()
              .filter(p -> p.start() == placement.start())
              .findFirst()
              .orElseThrow(
                  () ->
                      new MigRefusedException(
                          MigRefusedException.Refusal.NotSupported,
                          attempt
                              + ": NVML's "
                              + profile.label()
                              + " starts only at "
                              + profile.starts()));
      destroyHalfMade(device, profiles, mask(where));
      var gi = mig.createGpuInstance(device, profile.info().id(), where);
      int ciId;
      try {
        var fill = fillingProfile(gi, profile.info().sliceCount(), attempt);
        ciId = mig.computeInstanceId(mig.createComputeInstance(gi, fill));
      } catch (NvmlException | MigRefusedException e) {
        destroyQuietly(gi); // no half-made instance left behind when we can help it
        throw e;
      }
      int giId = mig.gpuInstanceInfo(gi).id();
      var uuid = migDeviceUuids(device).get(key(giId, ciId));
      if (uuid == null) {
        throw new MigRefusedException(
            MigRefusedException.Refusal.Failed,
            attempt
                + ": created gi "
                + giId
                + " ci "
                + ciId
                + ", but NVML lists no MIG device for it");
      }
      return instance(
          gpu.index(), placement, giId, ciId, uuid, nvml.minorNumber(device), accessFiles());
    } catch (NvmlException e) {
      throw MigRefusedException.of(e, attempt);
    }
  }

  @Override
  public synchronized void destroy(LiveInstance instance) throws MigRefusedException {
    var attempt =
        gpuText(instance.gpu())
            + ": destroying "
            + instance.placement()
            + " (gi "
            + instance.giId()
            + ")";
    try {
      var device = nvml.handleByIndex(instance.gpu());
      var gi = mig.gpuInstanceById(device, instance.giId());
      if (gi.isEmpty()
          || mig.gpuInstanceInfo(gi.get()).placement().start() != instance.placement().start()) {
        return; // gone already (the id may name a newer instance elsewhere: not ours)
      }
      var ci = mig.computeInstanceById(gi.get(), instance.ciId());
      if (ci.isPresent()) {
        mig.destroyComputeInstance(ci.get());
      }
      mig.destroyGpuInstance(gi.get());
    } catch (NvmlException e) {
      throw MigRefusedException.of(e, attempt);
    }
  }

  @Override
  public List<VerifiedNode> capabilityNodes(LiveInstance instance) {
    return accessFiles().nodes(instance);
  }

  @Override
  public synchronized void close() {
    close(nvml);
  }

  private static void close(NvmlLibrary library) {
    try {
      library.shutdown();
    } catch (NvmlException e) {
      // nothing to undo: the library is unloaded next either way
    }
    library.close();
  }

  /** The mode, or empty where the GPU has no MIG (NOT_SUPPORTED). */
  private Optional<NvmlMigMode> mode(MemorySegment device) throws NvmlException {
    try {
      return Optional.of(mig.migMode(device));
    } catch (NvmlException e) {
      if (e.code() == NvmlReturn.NOT_SUPPORTED) {
        return Optional.empty();
      }
      throw e;
    }
  }

  private NvmlMigProfiles profiles(MemorySegment device) throws NvmlException {
    var out = new ArrayList<NvmlMigProfiles.Profile>();
    for (int index = 0; index < GI_PROFILE_INDEXES; index++) {
      var info = mig.giProfile(device, index);
      if (info.isPresent()) {
        out.add(
            new NvmlMigProfiles.Profile(
                index, info.get(), mig.possiblePlacements(device, info.get().id())));
      }
    }
    return new NvmlMigProfiles(out);
  }

  /** The compute instance in {@code gi}, whatever its profile; empty for a half-made one. */
  private Optional<Integer> computeInstanceId(MemorySegment gi) throws NvmlException {
    for (int index = 0; index < CI_PROFILE_INDEXES; index++) {
      var profile = mig.ciProfile(gi, index);
      if (profile.isPresent()) {
        var cis = mig.computeInstances(gi, profile.get().id(), profile.get().instanceCount());
        if (!cis.isEmpty()) {
          return Optional.of(mig.computeInstanceId(cis.getFirst()));
        }
      }
    }
    return Optional.empty();
  }

  /** The compute instance profile that takes all {@code slices} of the GPU instance. */
  private int fillingProfile(MemorySegment gi, int slices, String attempt)
      throws NvmlException, MigRefusedException {
    for (int index = 0; index < CI_PROFILE_INDEXES; index++) {
      var profile = mig.ciProfile(gi, index);
      if (profile.isPresent() && profile.get().sliceCount() == slices) {
        return profile.get().id();
      }
    }
    throw new MigRefusedException(
        MigRefusedException.Refusal.NotSupported,
        attempt + ": NVML offers no compute instance profile of " + slices + " slices");
  }

  /** Destroys the GPU instances without a compute instance that overlap {@code mask}. */
  private void destroyHalfMade(MemorySegment device, NvmlMigProfiles profiles, int mask)
      throws NvmlException {
    for (var p : profiles.profiles()) {
      for (var gi : mig.gpuInstances(device, p.info().id(), p.info().instanceCount())) {
        if ((mask(mig.gpuInstanceInfo(gi).placement()) & mask) != 0
            && computeInstanceId(gi).isEmpty()) {
          mig.destroyGpuInstance(gi);
        }
      }
    }
  }

  private void destroyQuietly(MemorySegment gi) {
    try {
      mig.destroyGpuInstance(gi);
    } catch (NvmlException e) {
      // left half-made: the next create over it, or MIG off, destroys it
    }
  }

  /** Each MIG device's UUID by its (GI, CI) ids: what CUDA_VISIBLE_DEVICES names. */
  private Map<Long, String> migDeviceUuids(MemorySegment device) throws NvmlException {
    var out = new HashMap<Long, String>();
    int max = mig.maxMigDevices(device);
    for (int i = 0; i < max; i++) {
      var d = mig.migDevice(device, i);
      if (d.isPresent()) {
        out.put(
            key(mig.migDeviceGpuInstance(d.get()), mig.migDeviceComputeInstance(d.get())),
            nvml.uuid(d.get()));
      }
    }
    return out;
  }

  private static long key(int gi, int ci) {
    return ((long) gi << 32) | (ci & 0xffffffffL);
  }

  static int mask(NvmlPlacement p) {
    return ((1 << p.size()) - 1) << p.start();
  }

  private LiveInstance instance(
      int gpu,
      MigPlacement placement,
      int gi,
      int ci,
      String uuid,
      int gpuMinor,
      MigAccessFiles files) {
    return new LiveInstance(
        gpu, placement, gi, ci, uuid, files.giMinor(gpuMinor, gi), files.ciMinor(gpuMinor, gi, ci));
  }

  private MigAccessFiles accessFiles() {
    try {
      return MigAccessFiles.read(root);
    } catch (IOException e) {
      return MigAccessFiles.none(root); // the driver's own numbering; the device check verifies
    }
  }

  private static MigRefusedException noProfile(
      String attempt, MigPlacement placement, NvmlMigProfiles profiles) {
    var p = placement.profile();
    return new MigRefusedException(
        MigRefusedException.Refusal.NotSupported,
        attempt
            + ": NVML offers no profile of "
            + p.computeSlices()
            + " compute and "
            + p.memorySlices()
            + " memory slices (it offers "
            + profiles.profiles().stream().map(NvmlMigProfiles.Profile::label).toList()
            + ")");
  }

  /** "gpu 0 (NVIDIA H200)", or just "gpu 0" if NVML cannot name it. */
  private String gpuText(int gpu) {
    try {
      return "gpu " + gpu + " (" + nvml.deviceName(nvml.handleByIndex(gpu)) + ")";
    } catch (NvmlException e) {
      return "gpu " + gpu;
    }
  }
}
