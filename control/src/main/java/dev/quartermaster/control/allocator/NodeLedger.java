package dev.quartermaster.control.allocator;

import dev.quartermaster.api.node.Node;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The per-node allocation record: which claim (by uid) holds which device of the node, kept as
 * labels {@code alloc.quartermaster.dev/<device>=<claim-uid>} on the {@code Node}. The node object
 * is the compare-and-set point that serializes every allocator's decisions about that node.
 *
 * <p>Labels were chosen because the API has no other free-form, compare-and-set field per node;
 * the cost is the API's limit of 64 labels per object, so a node can record at most about 60
 * allocated devices besides its own labels. Agents and {@code qm} must preserve these labels when
 * they update a node (read, modify, write).
 */
public final class NodeLedger {
  /** The label prefix of ledger entries. */
  public static final String PREFIX = "alloc.quartermaster.dev/";

  private NodeLedger() {}

  /** Device name → claim uid, in device order. */
  public static Map<String, String> entries(Node node) {
    var out = new TreeMap<String, String>();
    node.metadata().labels().forEach((k, v) -> {
      if (k.startsWith(PREFIX)) {
        out.put(k.substring(PREFIX.length()), v);
      }
    });
    return out;
  }

  /** {@code node} with {@code add} (device → claim uid) recorded. */
  public static Node with(Node node, Map<String, String> add) {
    var labels = new HashMap<>(node.metadata().labels());
    add.forEach((device, uid) -> labels.put(PREFIX + device, uid));
    return node.withMetadata(node.metadata().withLabels(labels));
  }

  /** {@code node} without the entries for {@code devices}. */
  public static Node without(Node node, Set<String> devices) {
    var labels = new HashMap<>(node.metadata().labels());
    devices.forEach(d -> labels.remove(PREFIX + d));
    return node.withMetadata(node.metadata().withLabels(labels));
  }
}
