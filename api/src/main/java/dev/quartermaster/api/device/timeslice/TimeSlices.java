package dev.quartermaster.api.device.timeslice;

import dev.quartermaster.api.device.Device;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/** The replicas of a time-sliced GPU: their class, names and attributes (see the package). */
public final class TimeSlices {
  /** The device class of a time-sliced GPU's replicas. */
  public static final String DEVICE_CLASS = "timeslice";

  /** The attribute naming a replica's GPU. */
  public static final String PARENT = "parent";

  /** The attribute with a replica's number on its GPU, from 0. */
  public static final String REPLICA = "replica";

  /** The attribute with how many replicas the GPU offers: how many clients may share it. */
  public static final String REPLICAS = "replicas";

  /** The attribute saying how the GPU is shared, for selectors and people. */
  public static final String SHARING = "sharing";

  public static final String TIME_SLICED = "time-sliced";

  /** What {@code describe} and the docs say of a replica's isolation. */
  public static final String NO_ISOLATION =
      "time-sliced: clients take turns on the whole GPU; nothing isolates their memory or faults";

  private static final Pattern NAME = Pattern.compile("(.+)-ts-([0-9]+)");

  private TimeSlices() {}

  /** Replica {@code replica} of {@code gpu}: {@code gpu-0-ts-2}. */
  public static String name(String gpu, int replica) {
    return gpu + "-ts-" + replica;
  }

  /** A replica named {@code device}: its GPU and number, or empty for any other device. */
  public static Optional<Replica> parse(String device) {
    var m = NAME.matcher(device);
    if (!m.matches() || m.group(2).length() > 4) {
      return Optional.empty();
    }
    return Optional.of(new Replica(m.group(1), Integer.parseInt(m.group(2))));
  }

  /** A replica of GPU {@code gpu}, number {@code replica}. */
  public record Replica(String gpu, int replica) {
    public String name() {
      return TimeSlices.name(gpu, replica);
    }
  }

  /**
   * The {@code replicas} devices {@code whole} offers when time-sliced: each its GPU's attributes
   * (uuid, model, memory, minor: a client sees all of it) and health, with its parent, number and
   * how it is shared.
   */
  public static List<Device> replicas(Device whole, int replicas) {
    var out = new ArrayList<Device>(replicas);
    for (int k = 0; k < replicas; k++) {
      var attributes = new LinkedHashMap<>(whole.attributes());
      attributes.put(PARENT, whole.name());
      attributes.put(REPLICA, Integer.toString(k));
      attributes.put(REPLICAS, Integer.toString(replicas));
      attributes.put(SHARING, TIME_SLICED);
      out.add(
          new Device(
              name(whole.name(), k),
              DEVICE_CLASS,
              attributes,
              whole.health(),
              whole.healthReason()));
    }
    return out;
  }
}
