package dev.quartermaster.server;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpExchange;
import dev.quartermaster.api.error.ApiError;
import java.io.IOException;
import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Caps the requests one client address has in flight, so that one client cannot take every handler
 * (e.g. by opening thousands of watches). It sees requests only once their headers were read: a
 * connection stalled before that is bounded by the JDK server's request timeout and connection cap
 * instead ({@link ConnectionSettings}), since the JDK server offers no hook at accept.
 */
final class PerAddressLimit extends Filter {
  private final int max;
  private final Metrics metrics;
  private final ConcurrentHashMap<InetAddress, Integer> inFlight = new ConcurrentHashMap<>();

  PerAddressLimit(int max, Metrics metrics) {
    this.max = max;
    this.metrics = metrics;
  }

  @Override
  public void doFilter(HttpExchange exchange, Chain chain) throws IOException {
    var address = exchange.getRemoteAddress().getAddress();
    if (!tryEnter(address)) {
      metrics.rejected("per_address");
      try (exchange) {
        exchange.getResponseHeaders().set("Retry-After", "1");
        Exchanges.send(exchange, ErrorResponses.reply(ApiError.of(ApiError.Reason.Unavailable,
            "too many requests in flight from " + address.getHostAddress() + " (limit " + max + "); retry later")));
      }
      return;
    }
    try {
      chain.doFilter(exchange);
    } finally {
      exit(address);
    }
  }

  @Override
  public String description() {
    return "at most " + max + " requests in flight per client address";
  }

  /** Requests in flight from {@code address}; tests read it. */
  int inFlight(InetAddress address) {
    return inFlight.getOrDefault(address, 0);
  }

  private boolean tryEnter(InetAddress address) {
    var admitted = new boolean[1];
    inFlight.compute(address, (a, n) -> {
      int now = n == null ? 0 : n;
      admitted[0] = now < max;
      return admitted[0] ? now + 1 : (n == null ? null : n);
    });
    return admitted[0];
  }

  private void exit(InetAddress address) {
    // Drop the entry at zero, so the map holds only addresses with requests in flight.
    inFlight.computeIfPresent(address, (a, n) -> n <= 1 ? null : n - 1);
  }
}
