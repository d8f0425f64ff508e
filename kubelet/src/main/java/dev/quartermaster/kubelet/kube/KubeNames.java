package dev.quartermaster.kubelet.kube;

/**
 * The names this driver uses in Kubernetes objects: device attributes (qualified by the driver's
 * domain in CEL: {@code device.attributes["gpu.quartermaster.dev"].type}), the taint key, and the
 * label its ResourceSlices carry.
 */
public final class KubeNames {
  /** A device's kind: {@code gpu} or {@code channel}. */
  public static final String TYPE = "type";

  public static final String UUID = "uuid";
  public static final String MODEL = "model";
  public static final String INDEX = "index";
  public static final String MINOR = "minor";

  /** The standard PCI attribute, so that generic selectors and tools find it. */
  public static final String PCI_BUS_ID = "resource.kubernetes.io/pciBusID";

  public static final String CHANNEL_ID = "id";

  /** False while a control node the GPU's containers need is missing or wrong. */
  public static final String CONTROL_NODES_READY = "controlNodesReady";

  /** While not ready: what is missing or wrong (clipped to the API's 64 characters). */
  public static final String CONTROL_NODES_PROBLEM = "controlNodesProblem";

  /** The capacity of a GPU's memory (an MPS device's: what its shares consume, KEP-5075). */
  public static final String MEMORY = "memory";

  /** An MPS device's capacity of compute, in percent of its SMs, consumed by each share. */
  public static final String COMPUTE = "compute";

  /** An MPS device's capacity of clients: each share consumes one. */
  public static final String CLIENTS = "clients";

  /** The taint on a GPU whose control nodes are missing; its value names them. */
  public static final String CONTROL_NODES_TAINT = "gpu.quartermaster.dev/control-nodes-missing";

  /** On every slice of ours: the node it describes. */
  public static final String NODE_LABEL = "gpu.quartermaster.dev/node";

  /**
   * The annotation on each slice with the SHA-256 of the devices it was written with: what the
   * publisher compares with what it would write, on the slices the API server holds.
   */
  public static final String DEVICES_DIGEST = "gpu.quartermaster.dev/devices-sha256";

  /** The API's limit on devices in one ResourceSlice. */
  public static final int MAX_DEVICES_PER_SLICE = 128;

  /**
   * The API's limit on devices in one ResourceSlice where any is tainted or consumes counters
   * ({@code ResourceSliceMaxDevicesWithAdvancedFeatures}, v1.36).
   */
  public static final int MAX_DEVICES_PER_SLICE_ADVANCED = 64;

  /** The API's limit on counter sets in one ResourceSlice ({@code sharedCounters}, v1.36). */
  public static final int MAX_COUNTER_SETS_PER_SLICE = 8;

  /** The API's limit on counters in one counter set, and in one consumption of it (v1.36). */
  public static final int MAX_COUNTERS = 32;

  /** The API's limit on counter sets one device consumes from (v1.36). */
  public static final int MAX_CONSUMPTIONS_PER_DEVICE = 2;

  /** The API's limit on attributes and capacities of one device together (v1.36). */
  public static final int MAX_ATTRIBUTES_AND_CAPACITIES = 32;

  /** The longest string attribute the API allows. */
  public static final int MAX_STRING = 64;

  private KubeNames() {}
}
