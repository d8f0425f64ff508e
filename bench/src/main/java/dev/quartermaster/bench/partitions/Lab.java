package dev.quartermaster.bench.partitions;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The harness's own network: a namespace per member (an etcd member, a server, an agent), each
 * joined by a veth pair to one bridge in a hub namespace, and the harness itself (the root
 * namespace) on the same bridge. Addresses are link-local ({@code 169.254.77.0/24}), never a
 * private range a machine may already route. Cuts are {@code iptables} DROP rules in a member's own
 * namespace, so a cut touches only the harness's traffic and {@link #healAll} removes every one.
 */
final class Lab implements AutoCloseable {
  /**
   * The lab's {@code /24}: {@code 169.254.77.} unless {@code -Dqm.bench.partitionNet} names another
   * third octet, so two labs can run side by side with seeds of their own.
   */
  static final String SUBNET = "169.254." + thirdOctet() + ".";

  private static final String HARNESS = SUBNET + "1";

  private static int thirdOctet() {
    int octet = Integer.getInteger("qm.bench.partitionNet", 77);
    if (octet < 1 || octet > 254) {
      throw new IllegalArgumentException(
          "qm.bench.partitionNet: " + octet + " is not a third octet from 1 to 254");
    }
    return octet;
  }

  /** Names are short: an interface name is at most 15 characters. */
  private final String prefix;

  /** Members whose link {@link #slow} slowed and nothing has restored yet. */
  private final java.util.Set<String> slowed = java.util.concurrent.ConcurrentHashMap.newKeySet();

  private final Map<String, String> addresses = new LinkedHashMap<>();
  private boolean hubMade;

  private Lab(String prefix) {
    this.prefix = prefix;
  }

  /**
   * Why this machine cannot run the lab, or empty: it needs root, {@code ip} with network
   * namespaces and {@code iptables}.
   */
  static Optional<String> unavailable() {
    if (!"root".equals(System.getProperty("user.name"))) {
      return Optional.of("needs root (network namespaces and iptables rules); run as root");
    }
    for (var tool : List.of("/usr/sbin/ip", "/usr/sbin/iptables", "/usr/sbin/tc")) {
      if (!java.nio.file.Files.isExecutable(java.nio.file.Path.of(tool))) {
        return Optional.of("needs " + tool + " (apt-get install iproute2 iptables)");
      }
    }
    try {
      var probe = "qmp-probe-" + ProcessHandle.current().pid();
      run("ip", "netns", "add", probe);
      run("ip", "netns", "del", probe);
    } catch (IOException e) {
      return Optional.of("cannot make a network namespace here: " + e.getMessage());
    }
    return Optional.empty();
  }

  static Lab create() throws IOException {
    var lab = new Lab("qp" + (ProcessHandle.current().pid() % 10_000));
    lab.makeHub();
    return lab;
  }

  private void makeHub() throws IOException {
    var hub = hubNamespace();
    run("ip", "netns", "add", hub);
    hubMade = true;
    run("ip", "-n", hub, "link", "add", "br0", "type", "bridge");
    run("ip", "-n", hub, "link", "set", "br0", "up");
    // The harness's own leg, from the root namespace.
    var root = prefix + "-h";
    run("ip", "link", "add", root, "type", "veth", "peer", "name", "hub-h", "netns", hub);
    run("ip", "-n", hub, "link", "set", "hub-h", "master", "br0", "up");
    run("ip", "addr", "add", HARNESS + "/24", "dev", root);
    run("ip", "link", "set", root, "up");
  }

  /** A member's namespace, on the bridge at {@code SUBNET + host}; returns its address. */
  String join(String member, int host) throws IOException {
    var ns = namespace(member);
    var address = SUBNET + host;
    var hubSide = "hub-" + host;
    run("ip", "netns", "add", ns);
    run("ip", "-n", ns, "link", "set", "lo", "up");
    run(
        "ip",
        "-n",
        ns,
        "link",
        "add",
        "eth0",
        "type",
        "veth",
        "peer",
        "name",
        hubSide,
        "netns",
        hubNamespace());
    run("ip", "-n", hubNamespace(), "link", "set", hubSide, "master", "br0", "up");
    run("ip", "-n", ns, "addr", "add", address + "/24", "dev", "eth0");
    run("ip", "-n", ns, "link", "set", "eth0", "up");
    addresses.put(member, address);
    return address;
  }

  String address(String member) {
    var address = addresses.get(member);
    if (address == null) {
      throw new IllegalArgumentException("no member " + member + " in the lab");
    }
    return address;
  }

  String namespace(String member) {
    return prefix + "-" + member;
  }

  /** The command line that runs {@code command} in {@code member}'s namespace. */
  List<String> inside(String member, List<String> command) {
    var line = new ArrayList<>(List.of("ip", "netns", "exec", namespace(member)));
    line.addAll(command);
    return line;
  }

  /** Drops {@code from}'s packets to {@code to} (one way: answers and the reverse still pass). */
  void cutOneWay(String from, String to) throws IOException {
    rule("-A", from, "OUTPUT", "-d", to);
  }

  /** Takes back one {@link #cutOneWay}. */
  void uncutOneWay(String from, String to) throws IOException {
    rule("-D", from, "OUTPUT", "-d", to);
  }

  /** Nothing passes between {@code a} and {@code b}, either way. */
  void cut(String a, String b) throws IOException {
    rule("-A", a, "OUTPUT", "-d", b);
    rule("-A", a, "INPUT", "-s", b);
  }

  /** Takes back one {@link #cut}. */
  void uncut(String a, String b) throws IOException {
    rule("-D", a, "OUTPUT", "-d", b);
    rule("-D", a, "INPUT", "-s", b);
  }

  private void rule(String op, String member, String chain, String direction, String peer)
      throws IOException {
    run(
        "ip",
        "netns",
        "exec",
        namespace(member),
        "iptables",
        op,
        chain,
        direction,
        address(peer),
        "-j",
        "DROP");
  }

  /**
   * {@code member}'s link slowed to 1 KB/s (a token bucket on its side, queueing up to 60 s of what
   * it sends): what it sends arrives seconds to a minute late, after its peers gave up on it.
   */
  void slow(String member) throws IOException {
    run(
        "ip",
        "netns",
        "exec",
        namespace(member),
        "tc",
        "qdisc",
        "replace",
        "dev",
        "eth0",
        "root",
        "tbf",
        "rate",
        "8kbit",
        "burst",
        "1600",
        "latency",
        "60s");
    slowed.add(member);
  }

  /** Takes back a {@link #slow} (packets still queued are dropped: TCP sends them again). */
  void unslow(String member) {
    if (!slowed.remove(member)) {
      return;
    }
    runQuietly(
        "ip", "netns", "exec", namespace(member), "tc", "qdisc", "del", "dev", "eth0", "root");
  }

  /** Every cut of {@code member}'s namespace removed. */
  void heal(String member) throws IOException {
    unslow(member);
    run("ip", "netns", "exec", namespace(member), "iptables", "-F", "INPUT");
    run("ip", "netns", "exec", namespace(member), "iptables", "-F", "OUTPUT");
  }

  void healAll() throws IOException {
    for (var member : addresses.keySet()) {
      heal(member);
    }
  }

  /** Removes the namespaces and links; a second call does nothing. */
  @Override
  public synchronized void close() {
    if (!hubMade) {
      return;
    }
    for (var member : addresses.keySet()) {
      runQuietly("ip", "netns", "del", namespace(member));
    }
    runQuietly("ip", "netns", "del", hubNamespace());
    runQuietly("ip", "link", "del", prefix + "-h");
    hubMade = false;
  }

  private String hubNamespace() {
    return prefix + "-hub";
  }

  static void run(String... command) throws IOException {
    var process = new ProcessBuilder(command).redirectErrorStream(true).start();
    var output = new String(process.getInputStream().readAllBytes()).strip();
    try {
      if (process.waitFor() != 0) {
        throw new IOException(String.join(" ", command) + " failed: " + output);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted: " + String.join(" ", command), e);
    }
  }

  private static void runQuietly(String... command) {
    try {
      run(command);
    } catch (IOException e) {
      System.err.println("partitions: cleaning up, " + e.getMessage());
    }
  }
}
