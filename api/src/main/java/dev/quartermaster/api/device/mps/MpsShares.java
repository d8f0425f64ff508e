package dev.quartermaster.api.device.mps;

import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.use.Parts;
import java.util.LinkedHashMap;
import java.util.Optional;
import java.util.regex.Pattern;

/** The device an MPS GPU offers, the names of its shares and the rules of a share's size. */
public final class MpsShares {
  /** The device class of an MPS GPU's shared device. */
  public static final String DEVICE_CLASS = "mps";

  /** The {@code sharing} attribute's value on an MPS GPU's device. */
  public static final String MPS = "mps";

  /** The attribute with the GPU's compute in percent: 100. */
  public static final String COMPUTE = "compute";

  /** The attribute with how many shares the GPU serves at once. */
  public static final String CLIENTS = "clients";

  /** The attribute with the GPU's memory in bytes (as on the whole GPU). */
  public static final String MEMORY = "memory";

  /** A share's compute is a multiple of this many percent. */
  public static final int COMPUTE_STEP = 5;

  /** CUDA's MPS client limit per GPU on Volta and later. */
  public static final int MAX_CLIENTS = 48;

  public static final long GIB = 1L << 30;

  /** What {@code describe} and the docs say of an MPS share's isolation. */
  public static final String ONE_FAULT_DOMAIN =
      "MPS: each client has its compute share and a hard memory cap, but all clients of a GPU are"
          + " one fault domain: a fatal GPU fault in one client ends the GPU work of every other";

  private static final Pattern SHARE =
      Pattern.compile("(.+)-mps-([0-9]{1,3})pct-([0-9]{1,6})gib-([0-9]{1,4})");

  private MpsShares() {}

  /** The device MPS GPU {@code gpu} offers: {@code gpu-0-mps}. */
  public static String template(String gpu) {
    return gpu + "-mps";
  }

  /** A share named {@code device}, or empty for any other device. */
  public static Optional<MpsShare> parse(String device) {
    if (!device.contains("-mps-")) {
      return Optional.empty();
    }
    var m = SHARE.matcher(device);
    if (!m.matches()) {
      return Optional.empty();
    }
    return Optional.of(
        new MpsShare(
            m.group(1),
            Integer.parseInt(m.group(2)),
            Integer.parseInt(m.group(3)),
            Integer.parseInt(m.group(4))));
  }

  /**
   * The device a node publishes that offers {@code device}: an MPS share's GPU's device ({@code
   * gpu-0-mps}), else {@code device} itself.
   */
  public static String publishedAs(String device) {
    return parse(device).map(s -> template(s.gpu())).orElse(device);
  }

  /** The GPU whose MPS device {@code device} is ({@code gpu-0-mps}), or empty. */
  public static Optional<String> gpuOfTemplate(String device) {
    return device.endsWith("-mps") && device.length() > 4
        ? Optional.of(device.substring(0, device.length() - 4))
        : Optional.empty();
  }

  /** Whether {@code d} is an MPS GPU's shared device. */
  public static boolean isTemplate(Device d) {
    return d.deviceClass().equals(DEVICE_CLASS) && gpuOfTemplate(d.name()).isPresent();
  }

  /** What the published MPS device {@code d} offers its shares. */
  public static MpsCapacity capacity(Device d) {
    long bytes = parseLong(d.attributes().get(MEMORY), Long.MAX_VALUE);
    int gib =
        bytes == Long.MAX_VALUE
            ? Integer.MAX_VALUE
            : (int) Math.min(Integer.MAX_VALUE, bytes / GIB);
    int clients = (int) parseLong(d.attributes().get(CLIENTS), MAX_CLIENTS);
    return new MpsCapacity(100, gib, Math.min(clients, MAX_CLIENTS));
  }

  private static long parseLong(String s, long otherwise) {
    if (s == null) {
      return otherwise;
    }
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      return otherwise;
    }
  }

  /**
   * The device {@code whole} offers when shared by MPS with at most {@code clients} shares: its
   * attributes (uuid, model, memory, minor) with its parent, compute and clients, and its health.
   */
  public static Device template(Device whole, int clients) {
    var attributes = new LinkedHashMap<>(whole.attributes());
    attributes.put(Parts.PARENT, whole.name());
    attributes.put(COMPUTE, "100");
    attributes.put(CLIENTS, Integer.toString(clients));
    attributes.put(dev.quartermaster.api.device.timeslice.TimeSlices.SHARING, MPS);
    return new Device(
        template(whole.name()), DEVICE_CLASS, attributes, whole.health(), whole.healthReason());
  }

  /** Share {@code share} of the published MPS device {@code template}, as a fit weighs it. */
  public static Device share(Device template, MpsShare share) {
    return new Device(
        share.name(),
        DEVICE_CLASS,
        template.attributes(),
        template.health(),
        template.healthReason());
  }
}
