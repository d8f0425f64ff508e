package dev.quartermaster.api.gang;

import java.util.List;

/**
 * The node labels that describe where a node sits, from widest to narrowest. Any label key may be
 * named by a gang's topology; these are the ones {@code qm up --topology} lays out and the docs
 * describe.
 */
public final class TopologyKeys {
  /** A failure and network domain: a hall, a building. */
  public static final String ZONE = "topology.quartermaster.dev/zone";

  /** The rack: nodes behind one top-of-rack switch. */
  public static final String RACK = "topology.quartermaster.dev/rack";

  /**
   * The NVLink clique (IMEX domain): nodes whose GPUs share an NVLink fabric, as one GB200 NVL72
   * rack; a compute domain's members must all be in one.
   */
  public static final String NVLINK_CLIQUE = "topology.quartermaster.dev/nvlink-clique";

  /** The documented keys, widest first. */
  public static final List<String> ALL = List.of(ZONE, RACK, NVLINK_CLIQUE);

  private TopologyKeys() {}
}
