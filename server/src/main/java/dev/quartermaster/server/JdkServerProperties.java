package dev.quartermaster.server;

import com.sun.management.UnixOperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries {@link ConnectionSettings} into the JDK HTTP server, which reads its limits from system
 * properties once, when its implementation class initialises (the first server created in this
 * JVM). So they are set before the first {@code HttpServer.create}, and only where the operator did
 * not set them already ({@code -Dsun.net.httpserver.maxReqTime=...} wins). A second server in the
 * same JVM with different settings gets the first one's: that is logged, not hidden.
 */
final class JdkServerProperties {
  private static final Logger log = LoggerFactory.getLogger(JdkServerProperties.class);

  static final String MAX_REQ_TIME = "sun.net.httpserver.maxReqTime";
  static final String IDLE_INTERVAL = "sun.net.httpserver.idleInterval";
  static final String MAX_CONNECTIONS = "jdk.httpserver.maxConnections";
  static final String NODELAY = "sun.net.httpserver.nodelay";
  /**
   * Deliberately never set: {@code maxRspTime} limits a whole response, and a watch stream is a
   * response that lasts for hours. Slow watch readers have their own write timeout.
   */
  static final String MAX_RSP_TIME = "sun.net.httpserver.maxRspTime";

  private JdkServerProperties() {}

  /**
   * A connection cap above the process's open-file limit protects nothing: the flood exhausts the
   * descriptors first, and then the store and the log cannot open files either. So the cap is at most
   * half the limit, leaving the other half to everything else.
   */
  static int withinFileLimit(int maxConnections) {
    if (ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean unix) {
      long half = unix.getMaxFileDescriptorCount() / 2;
      if (half >= 1 && half < maxConnections) {
        log.warn("event=http_connection_cap_lowered asked={} open_file_limit={} cap={} hint='raise ulimit -n for more'",
            maxConnections, unix.getMaxFileDescriptorCount(), half);
        return (int) half;
      }
    }
    return maxConnections;
  }

  /** Sets what is unset; returns the values in effect, for the log. */
  static synchronized Map<String, String> apply(ConnectionSettings settings) {
    var wanted = new LinkedHashMap<String, String>();
    wanted.put(MAX_REQ_TIME, Long.toString(settings.requestTimeout().toSeconds()));
    wanted.put(IDLE_INTERVAL, Long.toString(settings.idleTimeout().toSeconds()));
    wanted.put(MAX_CONNECTIONS, Integer.toString(withinFileLimit(settings.maxConnections())));
    // Small JSON answers written in two pieces (headers, body) otherwise wait on Nagle's algorithm
    // and the client's delayed ACK: milliseconds per request.
    wanted.put(NODELAY, "true");
    var effective = new LinkedHashMap<String, String>();
    wanted.forEach((key, value) -> {
      var before = System.getProperty(key);
      if (before == null) {
        System.setProperty(key, value);
        effective.put(key, value);
      } else {
        if (!before.equals(value)) {
          log.info("event=http_setting_kept property={} value={} asked={}", key, before, value);
        }
        effective.put(key, before);
      }
    });
    return effective;
  }
}
