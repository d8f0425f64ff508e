package dev.quartermaster.server.dashboard;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The web dashboard's files, served from the jar under {@code /dashboard/} and its page also at
 * {@code /}. Only the names listed here are answerable: the request path is looked up in a map,
 * never joined to a directory or a resource name, so {@code /dashboard/../x} or an encoded variant
 * is simply not found. The files hold no secrets (the token comes from the operator at login), so
 * they are served without auth like {@code /healthz}.
 */
public final class DashboardFiles {
  private static final String RESOURCE_DIR = "/dashboard/";

  /** The file names shipped in {@code server/src/main/resources/dashboard/}, each with its type. */
  private static final Map<String, String> SHIPPED =
      orderedTypes(
          List.of(
              "index.html", "text/html; charset=utf-8",
              "dashboard.css", "text/css; charset=utf-8",
              "app.js", "text/javascript; charset=utf-8",
              "api.js", "text/javascript; charset=utf-8",
              "live.js", "text/javascript; charset=utf-8",
              "vlist.js", "text/javascript; charset=utf-8",
              "views.js", "text/javascript; charset=utf-8",
              "detail.js", "text/javascript; charset=utf-8",
              "dom.js", "text/javascript; charset=utf-8"));

  private final Map<String, DashboardFile> byPath;

  private DashboardFiles(Map<String, DashboardFile> byPath) {
    this.byPath = Map.copyOf(byPath);
  }

  /** Reads every shipped file from the class path; a missing one is a broken build, said loudly. */
  public static DashboardFiles load() {
    var byPath = new LinkedHashMap<String, DashboardFile>();
    SHIPPED.forEach(
        (name, type) -> {
          var file = read(name, type);
          byPath.put(file.path(), file);
        });
    var page = byPath.get(RESOURCE_DIR + "index.html");
    // The page itself at the root and at the bare prefix: what an operator types.
    for (var alias : List.of("/", "/dashboard", "/dashboard/")) {
      byPath.put(alias, new DashboardFile(alias, page.contentType(), page.body(), page.etag()));
    }
    return new DashboardFiles(byPath);
  }

  /** The file answering {@code requestPath} exactly (the raw path, not decoded), if any. */
  public Optional<DashboardFile> find(String requestPath) {
    return Optional.ofNullable(byPath.get(requestPath));
  }

  /** Headers sent with every dashboard file; see {@link DashboardHeaders}. */
  public Map<String, String> headers(DashboardFile file) {
    return DashboardHeaders.forFile(file);
  }

  private static DashboardFile read(String name, String type) {
    try (var in = DashboardFiles.class.getResourceAsStream(RESOURCE_DIR + name)) {
      if (in == null) {
        throw new IllegalStateException(
            "the dashboard file " + RESOURCE_DIR + name + " is not in the jar");
      }
      var bytes = in.readAllBytes();
      return new DashboardFile(RESOURCE_DIR + name, type, bytes, etag(bytes));
    } catch (IOException e) {
      throw new UncheckedIOException("reading the dashboard file " + name, e);
    }
  }

  private static String etag(byte[] bytes) {
    try {
      var digest = MessageDigest.getInstance("SHA-256").digest(bytes);
      return "\"" + HexFormat.of().formatHex(digest, 0, 12) + "\"";
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }

  private static Map<String, String> orderedTypes(List<String> pairs) {
    var map = new LinkedHashMap<String, String>();
    for (int i = 0; i < pairs.size(); i += 2) {
      map.put(pairs.get(i), pairs.get(i + 1));
    }
    return map;
  }
}
