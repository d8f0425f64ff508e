package dev.quartermaster.server.auth;

/**
 * Who made a request, as established by an {@link Authenticator}.
 *
 * @param name for logs and audit, e.g. {@code admin} or {@code node:gpu-7}
 */
public record Principal(String name, Role role) {

  /** What a principal is; access rules switch over this closed set. */
  public sealed interface Role {}

  /** May do anything. */
  public record Admin() implements Role {}

  /** An agent: may read everything but write only what belongs to {@code nodeName}. */
  public record NodeAgent(String nodeName) implements Role {}

  public static Principal admin() {
    return new Principal("admin", new Admin());
  }

  public static Principal node(String nodeName) {
    return new Principal("node:" + nodeName, new NodeAgent(nodeName));
  }
}
