package dev.quartermaster.cli.commands;

import dev.quartermaster.api.gang.TopologyKeys;
import dev.quartermaster.cli.CliException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A simulated topology for {@code qm up --topology zones=Z,racks=R,cliques=C}: how many zones,
 * racks and NVLink cliques the nodes are split into, each a count for the whole cluster, each level
 * optional (a level left out gets no label). The nodes are cut in order into equal contiguous runs
 * ({@code node-1..k} in the first), and each finer count must be a multiple of every coarser one,
 * so that a clique never spans two racks nor a rack two zones, as on real hardware.
 *
 * @param counts the levels given, by label key, widest first
 */
record TopologyLayout(Map<String, Integer> counts) {
  /** The words of the syntax, widest first, with the label key and value prefix of each. */
  private record Level(String word, String key, String prefix) {}

  private static final List<Level> LEVELS =
      List.of(
          new Level("zones", TopologyKeys.ZONE, "zone-"),
          new Level("racks", TopologyKeys.RACK, "rack-"),
          new Level("cliques", TopologyKeys.NVLINK_CLIQUE, "clique-"));

  private static final String SYNTAX =
      "expected LEVEL=COUNT,... with LEVEL one of zones, racks, cliques (e.g. racks=2,cliques=4)";

  TopologyLayout {
    counts = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(counts));
  }

  /**
   * The layout {@code text} says for {@code nodes} nodes, or a {@link CliException} naming what is
   * wrong with it.
   */
  static TopologyLayout parse(String text, int nodes) {
    var given = new TreeMap<Integer, Integer>(); // level index → count
    if (text.isBlank()) {
      throw invalid("empty; " + SYNTAX);
    }
    for (var part : text.split(",", -1)) {
      var eq = part.indexOf('=');
      if (eq < 0) {
        throw invalid("'" + part + "': " + SYNTAX);
      }
      var word = part.substring(0, eq).strip();
      var value = part.substring(eq + 1).strip();
      int level = levelOf(word);
      if (given.containsKey(level)) {
        throw invalid(word + " given twice");
      }
      int count;
      try {
        count = Integer.parseInt(value);
      } catch (NumberFormatException e) {
        throw invalid(word + "=" + value + ": the count must be a whole number");
      }
      if (count < 1 || count > nodes) {
        throw invalid(
            word
                + "="
                + count
                + ": must be between 1 and the number of nodes ("
                + nodes
                + "): each "
                + word.substring(0, word.length() - 1)
                + " holds at least one node");
      }
      given.put(level, count);
    }
    var counts = new LinkedHashMap<String, Integer>();
    Optional<Map.Entry<Integer, Integer>> wider = Optional.empty();
    for (var e : given.entrySet()) {
      var level = LEVELS.get(e.getKey());
      if (wider.isPresent() && e.getValue() % wider.get().getValue() != 0) {
        var w = LEVELS.get(wider.get().getKey());
        throw invalid(
            level.word()
                + "="
                + e.getValue()
                + " is not a multiple of "
                + w.word()
                + "="
                + wider.get().getValue()
                + ": each of the "
                + w.word()
                + " must hold the same number of "
                + level.word()
                + ", and none spans two");
      }
      counts.put(level.key(), e.getValue());
      wider = Optional.of(e);
    }
    return new TopologyLayout(counts);
  }

  /**
   * The topology labels of node {@code index} (0-based) of {@code nodes}: e.g. {@code
   * topology.quartermaster.dev/rack=rack-1}, numbered across the cluster.
   */
  Map<String, String> labels(int index, int nodes) {
    var out = new LinkedHashMap<String, String>();
    for (var level : LEVELS) {
      var count = counts.get(level.key());
      if (count != null) {
        out.put(level.key(), level.prefix() + (index * count / nodes + 1));
      }
    }
    return out;
  }

  /** {@code rack-1, clique-2}: node {@code index}'s place, for the banner. */
  String describe(int index, int nodes) {
    return String.join(", ", new ArrayList<>(labels(index, nodes).values()));
  }

  private static int levelOf(String word) {
    for (int i = 0; i < LEVELS.size(); i++) {
      if (LEVELS.get(i).word().equals(word)) {
        return i;
      }
    }
    throw invalid("unknown level '" + word + "'; " + SYNTAX);
  }

  private static CliException invalid(String why) {
    return new CliException("--topology: " + why);
  }
}
