package dev.quartermaster.server.dashboard;

import java.util.Map;

/**
 * The response headers of dashboard files.
 *
 * <p>Caching: file names carry no content hash (there is no build step to add one), so a browser
 * must not keep a stale {@code app.js} after an upgrade; {@code no-cache} with a strong ETag makes
 * it revalidate every time and get a bodiless 304 when nothing changed, which is cheap on loopback
 * and on a LAN alike.
 *
 * <p>The Content-Security-Policy allows only this origin's scripts, styles and API calls: no inline
 * script, no eval, no frames. {@code form-action 'none'} means the login form can never be
 * submitted by the browser itself, so even if the script failed the token could not end up in a
 * URL; the script reads the field and keeps the token in sessionStorage.
 */
final class DashboardHeaders {
  static final String CSP =
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self';"
          + " img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

  private DashboardHeaders() {}

  static Map<String, String> forFile(DashboardFile file) {
    return Map.of(
        "Cache-Control", "no-cache",
        "ETag", file.etag(),
        "Content-Security-Policy", CSP,
        "X-Content-Type-Options", "nosniff",
        "Referrer-Policy", "no-referrer",
        "X-Frame-Options", "DENY");
  }
}
