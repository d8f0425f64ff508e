package dev.quartermaster.api.domain;

/**
 * @param numNodes how many nodes the domain spans: it is Ready when this many members have a ready
 *     daemon, and its workloads run only then
 * @param channelsPerTask how many IMEX channels each task of the domain's workloads gets on its
 *     node, in a claim of its own ({@code <task>-channels}); 1 when not given
 */
public record ComputeDomainSpec(int numNodes, Integer channelsPerTask) {
  public static final int MAX_NODES = 4_096;

  /** As many as one claim request may ask for. */
  public static final int MAX_CHANNELS_PER_TASK = 64;

  /** The device class a domain's channel claims ask for ({@code qm up} makes it). */
  public static final String CHANNEL_DEVICE_CLASS = "channel";

  public static final ComputeDomainSpec EMPTY = new ComputeDomainSpec(0, 1);

  public ComputeDomainSpec {
    channelsPerTask = channelsPerTask == null ? 1 : channelsPerTask;
  }

  public ComputeDomainSpec(int numNodes) {
    this(numNodes, 1);
  }
}
