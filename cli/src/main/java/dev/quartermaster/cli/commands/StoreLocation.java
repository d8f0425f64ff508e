package dev.quartermaster.cli.commands;

import dev.quartermaster.cli.CliException;
import java.util.ArrayList;
import java.util.List;

/** Where {@code qm server} keeps the cluster: SQLite in its data directory, or a shared etcd. */
public sealed interface StoreLocation {

  /** {@code <data>/store.db}: one server. */
  record Sqlite() implements StoreLocation {
    @Override
    public String describe() {
      return "SQLite (" + LocalServer.STORE_FILE + " in the data directory)";
    }
  }

  /**
   * etcd at {@code endpoints} (URLs), every key under {@code prefix}: as many servers as share it.
   */
  record Etcd(List<String> endpoints, String prefix) implements StoreLocation {
    public Etcd {
      endpoints = List.copyOf(endpoints);
    }

    @Override
    public String describe() {
      return "etcd " + String.join(",", endpoints) + " under " + prefix;
    }
  }

  /** How the banner and errors name it. */
  String describe();

  /**
   * {@code sqlite}, or {@code etcd://host:port[,host:port…]} with every key under {@code prefix}
   * (which starts with {@code /} and does not end with one).
   */
  static StoreLocation parse(String value, String prefix) {
    if (value.equals("sqlite")) {
      return new Sqlite();
    }
    if (!value.startsWith("etcd://")) {
      throw new CliException(
          "--store: '" + value + "' must be sqlite or etcd://HOST:PORT[,HOST:PORT…]");
    }
    if (!prefix.startsWith("/")
        || prefix.endsWith("/")
        || prefix.contains("//")
        || prefix.isBlank()) {
      throw new CliException(
          "--etcd-prefix: '" + prefix + "' must start with / and not end with one, like /qm");
    }
    var endpoints = new ArrayList<String>();
    for (var member : value.substring("etcd://".length()).split(",", -1)) {
      int colon = member.lastIndexOf(':');
      if (member.isBlank() || colon <= 0 || !validPort(member.substring(colon + 1))) {
        throw new CliException(
            "--store: member '"
                + member
                + "' of '"
                + value
                + "' must be HOST:PORT, like 127.0.0.1:2379");
      }
      endpoints.add("http://" + member);
    }
    return new Etcd(endpoints, prefix);
  }

  private static boolean validPort(String text) {
    try {
      int port = Integer.parseInt(text);
      return port > 0 && port < 65536;
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
