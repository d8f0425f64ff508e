package dev.quartermaster.cli.commands;

import java.net.URI;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code --listen HOST:PORT}, e.g. {@code 127.0.0.1:7480}, {@code 0.0.0.0:7480} or {@code
 * [::1]:7480}.
 */
public record ListenAddress(String host, int port) {

  public static ListenAddress parse(String text) {
    var colon = text.lastIndexOf(':');
    if (colon <= 0 || colon == text.length() - 1) {
      throw new IllegalArgumentException("must be HOST:PORT, e.g. 127.0.0.1:7480");
    }
    var host = text.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(text.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("port must be a number 0-65535");
    }
    if (port < 0 || port > 65_535) {
      throw new IllegalArgumentException("port must be a number 0-65535");
    }
    return new ListenAddress(host, port);
  }

  /** Whether only this machine can reach it (plain HTTP is allowed only there). */
  public boolean isLoopback() {
    return host.equals("localhost") || host.startsWith("127.") || host.equals("::1");
  }

  /** As {@link #clientUri(int)}, with {@code https} when the server speaks TLS. */
  public URI clientUri(int boundPort, boolean tls) {
    var plain = clientUri(boundPort).toString();
    return URI.create(tls ? "https" + plain.substring("http".length()) : plain);
  }

  /**
   * The URL a client on this machine uses: a wildcard address is reached through the loopback one.
   */
  public URI clientUri(int boundPort) {
    var reachable =
        switch (host) {
          case "0.0.0.0", "" -> "127.0.0.1";
          case "::", "0:0:0:0:0:0:0:0" -> "::1";
          default -> host;
        };
    var literal = reachable.contains(":") ? "[" + reachable + "]" : reachable;
    return URI.create("http://" + literal + ":" + boundPort);
  }

  @Override
  public String toString() {
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }

  /** Lets picocli report a malformed address as a usage error. */
  public static final class Converter implements ITypeConverter<ListenAddress> {
    @Override
    public ListenAddress convert(String value) {
      try {
        return parse(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException("'" + value + "' " + e.getMessage());
      }
    }
  }
}
