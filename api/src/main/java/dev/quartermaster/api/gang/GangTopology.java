package dev.quartermaster.api.gang;

import java.util.Optional;

/**
 * Where a gang's members go on the fleet's topology, named by node label keys ({@link
 * TopologyKeys}).
 *
 * @param required every member on nodes with one value of this key (one NVLink clique: a compute
 *     domain cannot span cliques); nodes without the label are not used
 * @param preferred members packed into as few values of this key as fit (fewest racks)
 */
public record GangTopology(Optional<String> required, Optional<String> preferred) {
  public static final GangTopology ANYWHERE = new GangTopology(Optional.empty(), Optional.empty());

  public GangTopology {
    required = required == null ? Optional.empty() : required;
    preferred = preferred == null ? Optional.empty() : preferred;
  }
}
