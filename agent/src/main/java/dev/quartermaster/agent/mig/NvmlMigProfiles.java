package dev.quartermaster.agent.mig;

import dev.quartermaster.agent.nvml.NvmlGiProfile;
import dev.quartermaster.agent.nvml.NvmlPlacement;
import dev.quartermaster.api.device.mig.MigGeometry;
import dev.quartermaster.api.device.mig.MigPlacement;
import dev.quartermaster.api.device.mig.MigProfile;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The GPU-instance profiles one GPU's driver offers, as NVML lists them, matched onto a {@link
 * MigGeometry} by shape — compute slices ({@code sliceCount}) and memory slices (a placement's
 * {@code size}) — never by name, since names drift between drivers. Where several NVML profiles
 * have one shape (a plain {@code 1g} and its {@code +me} media variant), the lowest profile index
 * serves: {@code nvml.h} numbers the plain profiles first.
 */
public record NvmlMigProfiles(List<Profile> profiles) {

  /**
   * One NVML profile.
   *
   * @param index its NVML_GPU_INSTANCE_PROFILE_* index, what the info call was asked with
   * @param placements where it may be created, as NVML lists them
   */
  public record Profile(int index, NvmlGiProfile info, List<NvmlPlacement> placements) {
    public Profile {
      Objects.requireNonNull(info, "info");
      placements = List.copyOf(placements);
    }

    /** The memory slices each of its placements spans (0 if NVML gave none). */
    public int memorySlices() {
      return placements.isEmpty() ? 0 : placements.getFirst().size();
    }

    public List<Integer> starts() {
      return placements.stream().map(NvmlPlacement::start).sorted().toList();
    }

    /** NVML's name without its {@code MIG } prefix: {@code 3g.71gb}. */
    public String label() {
      var name = info.name().strip();
      return name.startsWith("MIG ") ? name.substring(4) : name;
    }

    boolean hasShape(int computeSlices, int memorySlices) {
      return info.sliceCount() == computeSlices && memorySlices() == memorySlices;
    }

    @Override
    public String toString() {
      return label()
          + " (profile "
          + index
          + ", id "
          + info.id()
          + "): "
          + info.sliceCount()
          + " compute, "
          + memorySlices()
          + " memory slices at "
          + starts()
          + ", "
          + info.memoryMb()
          + " MiB";
    }
  }

  public NvmlMigProfiles {
    profiles = profiles.stream().sorted(Comparator.comparingInt(Profile::index)).toList();
  }

  /** The NVML profile that creates {@code profile}'s instances: same shape, lowest index. */
  public Optional<Profile> serving(MigProfile profile) {
    return profiles.stream()
        .filter(p -> p.hasShape(profile.computeSlices(), profile.memorySlices()))
        .findFirst();
  }

  /** The NVML profile with id {@code id}. */
  public Optional<Profile> byId(int id) {
    return profiles.stream().filter(p -> p.info().id() == id).findFirst();
  }

  /**
   * Where in {@code geometry} an instance of NVML profile {@code id} at {@code placement} sits: the
   * geometry's profile of the same shape, at that start; empty for a shape or start it lacks.
   */
  public Optional<MigPlacement> placement(MigGeometry geometry, int id, NvmlPlacement placement) {
    return byId(id)
        .flatMap(
            nvml ->
                geometry.profiles().stream()
                    .filter(
                        g ->
                            g.computeSlices() == nvml.info().sliceCount()
                                && g.memorySlices() == placement.size()
                                && g.starts().contains(placement.start()))
                    .findFirst())
        .map(g -> new MigPlacement(g, placement.start()));
  }

  /**
   * Where NVML and {@code geometry} disagree, one sentence each: a geometry profile NVML has no
   * profile of that shape for, or offers at other starts. Empty when the geometry is right for this
   * GPU.
   */
  public List<String> differences(MigGeometry geometry) {
    var out = new ArrayList<String>();
    for (var g : geometry.profiles()) {
      var nvml = serving(g);
      if (nvml.isEmpty()) {
        out.add(
            g.label()
                + " ("
                + g.shape()
                + "): NVML offers no profile of "
                + g.computeSlices()
                + " compute and "
                + g.memorySlices()
                + " memory slices");
      } else if (!nvml.get().starts().equals(g.starts())) {
        out.add(
            g.label()
                + " starts at "
                + g.starts()
                + " here, NVML's "
                + nvml.get().label()
                + " at "
                + nvml.get().starts());
      }
    }
    return out;
  }
}
