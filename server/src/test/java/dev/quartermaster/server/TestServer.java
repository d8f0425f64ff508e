package dev.quartermaster.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.http.HttpApiClient;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.error.ApiError;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.UnaryOperator;

/**
 * An {@link ApiServer} on a free port over a given {@link ApiClient}, with an HTTP client and a raw
 * one.
 */
final class TestServer implements AutoCloseable {
  final ApiServer server;
  final String token;
  final HttpApiClient client;
  final HttpClient raw = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  private TestServer(ApiServer server) throws IOException {
    this.server = server;
    this.token = Files.readString(server.adminTokenFile()).strip();
    this.client = new HttpApiClient(server.baseUri(), token);
  }

  static TestServer start(ApiClient api, Path dataDir) throws IOException {
    return start(api, dataDir, UnaryOperator.identity());
  }

  static TestServer start(ApiClient api, Path dataDir, UnaryOperator<ApiServerConfig> customize)
      throws IOException {
    var config = customize.apply(ApiServerConfig.of(api, dataDir).withListen("127.0.0.1", 0));
    return new TestServer(ApiServer.start(config));
  }

  URI uri(String pathAndQuery) {
    return URI.create(server.baseUri() + pathAndQuery);
  }

  HttpRequest.Builder request(String pathAndQuery) {
    return HttpRequest.newBuilder(uri(pathAndQuery)).header("Authorization", "Bearer " + token);
  }

  HttpResponse<String> send(HttpRequest request) {
    try {
      return raw.send(request, BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  HttpResponse<String> send(String method, String pathAndQuery, String body) {
    var publisher = body.isEmpty() ? BodyPublishers.noBody() : BodyPublishers.ofString(body);
    return send(request(pathAndQuery).method(method, publisher).build());
  }

  static ApiError error(HttpResponse<String> response) {
    try {
      return ObjectCodec.json().readValue(response.body(), ApiError.class);
    } catch (IOException e) {
      throw new AssertionError("not an ApiError: " + response.body(), e);
    }
  }

  static JsonNode json(String text) {
    try {
      return ObjectCodec.json().readTree(text);
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + text, e);
    }
  }

  @Override
  public void close() {
    client.close();
    raw.shutdownNow();
    server.close();
  }
}
