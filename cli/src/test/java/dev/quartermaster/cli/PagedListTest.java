package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.client.ListPage;
import dev.quartermaster.api.client.http.HttpApiClient;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceClassSpec;
import dev.quartermaster.api.device.DeviceClassStatus;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lists in pages, as Kubernetes pages them ({@code limit} and {@code continue}), through the real
 * server over HTTP: every page at the first page's revision, whatever changed since; bad parameters
 * a 400 naming them; a compacted revision a 410; {@code qm get} printing a table page by page as it
 * would print it whole.
 */
class PagedListTest {
  @TempDir Path dir;

  private CliServer cli;
  private HttpApiClient http;

  @BeforeEach
  void start() throws Exception {
    cli = CliServer.start(dir);
    http =
        new HttpApiClient(
            cli.server.baseUri(), Files.readString(cli.server.adminTokenFile()).strip());
    for (int i = 0; i < 7; i++) {
      cli.registry.create(deviceClass("class-" + i));
    }
  }

  @AfterEach
  void stop() {
    http.close();
    cli.close();
  }

  private static DeviceClass deviceClass(String name) {
    return new DeviceClass(
        ObjectMeta.named(name), new DeviceClassSpec("gpu", List.of()), DeviceClassStatus.EMPTY);
  }

  @Test
  void everyPageIsReadAtTheFirstPagesRevision() {
    var first = http.list(Kinds.DEVICE_CLASS, LabelSelector.ALL, ListPage.first(3));
    assertThat(names(first.items())).containsExactly("class-0", "class-1", "class-2");
    assertThat(first.continueToken()).isPresent();

    // Changes after the first page: a new class among the next pages' names, one of them gone.
    cli.registry.create(deviceClass("class-3a"));
    cli.registry.delete(Kinds.DEVICE_CLASS, "class-5");

    var seen = new ArrayList<>(names(first.items()));
    var page = ListPage.after(first, 3);
    while (page.isPresent()) {
      var next = http.list(Kinds.DEVICE_CLASS, LabelSelector.ALL, page.get());
      assertThat(next.revision()).isEqualTo(first.revision());
      seen.addAll(names(next.items()));
      page = ListPage.after(next, 3);
    }
    assertThat(seen)
        .as("the list as it was at the first page")
        .containsExactly(
            "class-0", "class-1", "class-2", "class-3", "class-4", "class-5", "class-6");
    assertThat(names(http.list(Kinds.DEVICE_CLASS).items()))
        .contains("class-3a")
        .doesNotContain("class-5");
  }

  @Test
  void aCompactedRevisionIsGoneAndBadParametersAreNamed() throws Exception {
    var first = http.list(Kinds.DEVICE_CLASS, LabelSelector.ALL, ListPage.first(2));
    cli.registry.create(deviceClass("class-7"));
    cli.store.compact(cli.store.currentRevision());
    assertThatThrownBy(
            () ->
                http.list(
                    Kinds.DEVICE_CLASS, LabelSelector.ALL, ListPage.after(first, 2).orElseThrow()))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.is(Reason.Gone)).isTrue();
              assertThat(e.getMessage()).contains("list again from the first page");
            });

    var token = first.continueToken().orElseThrow();
    assertThat(get("?limit=0")).startsWith("400").contains("limit");
    assertThat(get("?limit=x")).startsWith("400").contains("limit");
    assertThat(get("?limit=2&continue=garbage")).startsWith("400").contains("continue");
    assertThat(get("?continue=" + token)).startsWith("400").contains("continue");
    assertThat(get("?limit=2&limit=3")).startsWith("400").contains("limit");
    assertThat(get("?limit=3")).startsWith("200").contains("\"continue\"");
    assertThat(get("")).startsWith("200").doesNotContain("\"continue\"");
  }

  @Test
  void qmGetPrintsATablePageByPageAsItPrintsItWhole() {
    var whole = cli.run("get", "deviceclasses", "--chunk-size", "0");
    var paged = cli.run("get", "deviceclasses", "--chunk-size", "2");
    assertThat(paged.exit()).as(paged.err()).isZero();
    assertThat(paged.out()).isEqualTo(whole.out());
    assertThat(paged.outLines()).hasSize(8); // one header, seven rows
    assertThat(cli.runFast("get", "deviceclasses").orElseThrow().out()).isEqualTo(whole.out());

    var none = cli.run("get", "deviceclasses", "-l", "team=nobody", "--chunk-size", "2");
    assertThat(none.out()).isEmpty();
    assertThat(none.err()).isEqualTo("No deviceclasses found.\n");
    assertThat(cli.run("get", "deviceclasses", "--chunk-size", "-1").exit()).isEqualTo(2);
  }

  private String get(String query) throws Exception {
    try (var client = HttpClient.newHttpClient()) {
      var response =
          client.send(
              HttpRequest.newBuilder(
                      URI.create(cli.server.baseUri() + "/api/v1/deviceclasses" + query))
                  .header(
                      "Authorization",
                      "Bearer " + Files.readString(cli.server.adminTokenFile()).strip())
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return response.statusCode() + " " + response.body();
    }
  }

  private static List<String> names(List<DeviceClass> items) {
    return items.stream().map(c -> c.metadata().name()).toList();
  }
}
