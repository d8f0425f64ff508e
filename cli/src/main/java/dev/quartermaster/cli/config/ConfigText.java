package dev.quartermaster.cli.config;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Reads the client configuration file in the one layout {@link ConfigFile#write} gives it, without
 * a YAML parser: building Jackson's YAML mapper costs a client command more than a hundred
 * milliseconds, most of what {@code qm get} spends besides starting. Anything else (a file edited
 * by hand into another layout, an escaped character, a comment after a value, a field it does not
 * know) is not read here: {@link #parse} answers empty and {@link ConfigFile#read} uses the YAML
 * parser, so this reader can only agree with that one, never differ.
 */
final class ConfigText {
  private static final String CURRENT = "current: ";
  private static final String CLUSTER_INDENT = "  ";
  private static final String FIELD_INDENT = "    ";

  private ConfigText() {}

  static Optional<ConfigFile> parse(String text) {
    Optional<String> current = Optional.empty();
    var clusters = new LinkedHashMap<String, Map<String, String>>();
    Map<String, String> cluster = null; // the cluster whose fields the next lines are
    var inClusters = false;
    for (var line : text.split("\n", -1)) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      if (line.startsWith(CURRENT) && current.isEmpty()) {
        current = quoted(line.substring(CURRENT.length()));
        if (current.isEmpty()) {
          return Optional.empty();
        }
        inClusters = false;
        cluster = null;
      } else if (line.equals("clusters:") && !inClusters && clusters.isEmpty()) {
        inClusters = true;
      } else if (line.equals("clusters: {}") && !inClusters && clusters.isEmpty()) {
        cluster = null;
      } else if (inClusters
          && line.startsWith(CLUSTER_INDENT + "\"")
          && line.endsWith(":")
          && !line.startsWith(CLUSTER_INDENT + " ")) {
        var name = quoted(line.substring(CLUSTER_INDENT.length(), line.length() - 1));
        if (name.isEmpty() || clusters.containsKey(name.get())) {
          return Optional.empty();
        }
        cluster = new LinkedHashMap<>();
        clusters.put(name.get(), cluster);
      } else if (cluster != null
          && line.startsWith(FIELD_INDENT)
          && !line.startsWith(FIELD_INDENT + " ")) {
        var colon = line.indexOf(": ");
        if (colon < 0) {
          return Optional.empty();
        }
        var field = line.substring(FIELD_INDENT.length(), colon);
        var value = quoted(line.substring(colon + 2));
        if (!(field.equals("server") || field.equals("tokenFile") || field.equals("caFile"))
            || value.isEmpty()
            || cluster.containsKey(field)) {
          return Optional.empty();
        }
        cluster.put(field, value.get());
      } else {
        return Optional.empty();
      }
    }
    var entries = new LinkedHashMap<String, UserConfig>();
    clusters.forEach(
        (name, fields) ->
            entries.put(
                name,
                new UserConfig(
                    Optional.ofNullable(fields.get("server")),
                    Optional.ofNullable(fields.get("tokenFile")),
                    Optional.ofNullable(fields.get("caFile")))));
    return Optional.of(
        new ConfigFile(current, entries, Optional.empty(), Optional.empty(), Optional.empty()));
  }

  /**
   * The text between double quotes, when that is the whole of {@code s} and holds no quote or
   * escape.
   */
  private static Optional<String> quoted(String s) {
    if (s.length() < 2 || s.charAt(0) != '"' || s.charAt(s.length() - 1) != '"') {
      return Optional.empty();
    }
    var inner = s.substring(1, s.length() - 1);
    return inner.indexOf('"') >= 0 || inner.indexOf('\\') >= 0
        ? Optional.empty()
        : Optional.of(inner);
  }
}
