package dev.quartermaster.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.regex.Pattern;

/** A server's {@code /metrics} as a scraper reads it: one unlabelled series' value. */
final class MetricsPage {
  private MetricsPage() {}

  /** The value of {@code series} (no labels) on {@code server}'s page, as written ("NaN" too). */
  static String value(LocalServer server, String series) throws Exception {
    try (var http = HttpClient.newHttpClient()) {
      var body =
          http.send(
                  HttpRequest.newBuilder(URI.create(server.uri() + "/metrics")).build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      var m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(body);
      assertThat(m.find()).as(series + " in\n" + body).isTrue();
      return m.group(1);
    }
  }
}
