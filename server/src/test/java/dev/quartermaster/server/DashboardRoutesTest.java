package dev.quartermaster.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard's files as the server serves them: the page at {@code /} without auth, each file
 * with its type, a CSP and revalidation headers, a 304 for a current copy, and nothing outside the
 * fixed set: traversal and unknown paths stay 404 JSON as before.
 */
class DashboardRoutesTest {
  @TempDir Path dataDir;

  @Test
  void thePageAndItsFilesAreServedWithTheirTypesAndHeadersWithoutAuth() throws IOException {
    try (var t = TestServer.start(new InMemoryApiClient(), dataDir)) {
      for (var path : new String[] {"/", "/dashboard", "/dashboard/"}) {
        var page = t.send(HttpRequest.newBuilder(t.uri(path)).GET().build());
        assertThat(page.statusCode()).as(path).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
        assertThat(page.body()).contains("<script type=\"module\" src=\"/dashboard/app.js\">");
      }
      var page = t.send(HttpRequest.newBuilder(t.uri("/")).GET().build());
      assertThat(page.headers().firstValue("Content-Security-Policy"))
          .get()
          .asString()
          .contains("default-src 'none'")
          .contains("script-src 'self'")
          .contains("form-action 'none'")
          .doesNotContain("unsafe");
      assertThat(page.headers().firstValue("Cache-Control")).hasValue("no-cache");
      assertThat(page.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");

      var script = t.send(HttpRequest.newBuilder(t.uri("/dashboard/app.js")).GET().build());
      assertThat(script.statusCode()).isEqualTo(200);
      assertThat(script.headers().firstValue("Content-Type"))
          .hasValue("text/javascript; charset=utf-8");
      var css = t.send(HttpRequest.newBuilder(t.uri("/dashboard/dashboard.css")).GET().build());
      assertThat(css.headers().firstValue("Content-Type")).hasValue("text/css; charset=utf-8");
    }
  }

  @Test
  void aCurrentCopyIsA304WithoutBody() throws IOException {
    try (var t = TestServer.start(new InMemoryApiClient(), dataDir)) {
      var first = t.send(HttpRequest.newBuilder(t.uri("/dashboard/live.js")).GET().build());
      var etag = first.headers().firstValue("ETag").orElseThrow();
      var again =
          t.send(
              HttpRequest.newBuilder(t.uri("/dashboard/live.js"))
                  .header("If-None-Match", etag)
                  .GET()
                  .build());
      assertThat(again.statusCode()).isEqualTo(304);
      assertThat(again.body()).isEmpty();
      var stale =
          t.send(
              HttpRequest.newBuilder(t.uri("/dashboard/live.js"))
                  .header("If-None-Match", "\"old\"")
                  .GET()
                  .build());
      assertThat(stale.statusCode()).isEqualTo(200);
      assertThat(stale.body()).isEqualTo(first.body());
    }
  }

  @Test
  void onlyTheFixedFilesAnswerAndOnlyToGetAndHead() throws IOException {
    try (var t = TestServer.start(new InMemoryApiClient(), dataDir)) {
      int port = t.server.baseUri().getPort();
      for (var path :
          new String[] {
            "/dashboard/../pom.xml",
            "/dashboard/%2e%2e/dashboard/app.js",
            "/dashboard/app.js/",
            "/dashboard//app.js",
            "/dashboard/App.js",
            "/dashboard/dashboard/index.html",
            "/index.html",
            "/favicon.ico",
            "/dashboard/..%2F..%2Fetc%2Fpasswd",
            "/dashboard/app.js%00.html"
          }) {
        var response =
            RawHttp.one(port, "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assertThat(response.status()).as(path).isEqualTo(404);
        assertThat(response.isJson()).as(path).isTrue();
      }
      var post =
          t.send(
              HttpRequest.newBuilder(t.uri("/"))
                  .POST(HttpRequest.BodyPublishers.ofString("token=x"))
                  .build());
      assertThat(post.statusCode()).isEqualTo(405);
      assertThat(post.headers().firstValue("Allow")).hasValue("GET, HEAD");
      var head =
          t.send(
              HttpRequest.newBuilder(t.uri("/dashboard/app.js"))
                  .method("HEAD", HttpRequest.BodyPublishers.noBody())
                  .build());
      assertThat(head.statusCode()).isEqualTo(200);
      assertThat(head.body()).isEmpty();
    }
  }
}
