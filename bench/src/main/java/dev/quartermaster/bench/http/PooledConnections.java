package dev.quartermaster.bench.http;

import dev.quartermaster.api.client.http.Connections;
import dev.quartermaster.api.client.http.HttpAnswer;
import dev.quartermaster.api.client.http.NotConnected;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.apache.hc.client5.http.ConnectTimeoutException;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.client5.http.ssl.DefaultClientTlsStrategy;
import org.apache.hc.client5.http.ssl.TlsSocketStrategy;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.NoHttpResponseException;
import org.apache.hc.core5.http.io.SocketConfig;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.message.BasicClassicHttpRequest;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;

/**
 * The connections to one server as Apache HttpClient 5 (classic, blocking) keeps them, for the
 * bench to weigh against the client's own ({@code HttpClientBench}): a pooling connection manager,
 * no retries, redirects, cookies or compression, as the kept connections have none. An idle
 * connection is checked before use once it has been idle for {@link #VALIDATE_AFTER_IDLE}: the
 * library's check waits a millisecond for the server's bytes, so checking every time, as the
 * client's own connections do without waiting, would cost each call that millisecond. A deadline
 * bounds each read here, not the whole answer as the kept connections' does.
 */
final class PooledConnections implements Connections {
  private static final int MAX_CONNECTIONS = 64;
  private static final TimeValue VALIDATE_AFTER_IDLE = TimeValue.ofSeconds(1);

  private final HttpHost host;
  private final CloseableHttpClient client;

  PooledConnections(URI base, Optional<SSLContext> tls, int connectTimeoutMillis) {
    this.host = new HttpHost(base.getScheme(), base.getHost(), base.getPort());
    var builder =
        PoolingHttpClientConnectionManagerBuilder.create()
            .setMaxConnTotal(MAX_CONNECTIONS)
            .setMaxConnPerRoute(MAX_CONNECTIONS)
            .setDefaultSocketConfig(SocketConfig.custom().setTcpNoDelay(true).build())
            .setDefaultConnectionConfig(
                ConnectionConfig.custom()
                    .setConnectTimeout(Timeout.ofMilliseconds(connectTimeoutMillis))
                    .setValidateAfterInactivity(VALIDATE_AFTER_IDLE)
                    .build());
    // The library's default TLS loads the JDK's CA store when built (~100 ms): only an https call
    // may pay that.
    builder.setTlsSocketStrategy(
        tls.<TlsSocketStrategy>map(DefaultClientTlsStrategy::new)
            .orElseGet(
                () ->
                    (socket, target, port, attachment, context) ->
                        DefaultClientTlsStrategy.createDefault()
                            .upgrade(socket, target, port, attachment, context)));
    this.client =
        HttpClients.custom()
            .setConnectionManager(builder.build())
            .disableAutomaticRetries() // a write whose answer was lost is never resent
            // (HttpApiClient's rule)
            .disableRedirectHandling()
            .disableCookieManagement()
            .disableAuthCaching()
            .disableContentCompression()
            .build();
  }

  @Override
  public HttpAnswer exchange(
      String method,
      String target,
      Map<String, String> headers,
      Optional<byte[]> body,
      long deadlineNanos)
      throws IOException {
    long leftMillis = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
    if (leftMillis <= 0) {
      throw new HttpTimeoutException("request timed out");
    }
    var request = new BasicClassicHttpRequest(method, host, target);
    headers.forEach(request::addHeader);
    body.ifPresent(b -> request.setEntity(new ByteArrayEntity(b, null)));
    var context = HttpClientContext.create();
    context.setRequestConfig(
        RequestConfig.custom()
            .setResponseTimeout(Timeout.ofMilliseconds(leftMillis))
            .setConnectionRequestTimeout(Timeout.ofMilliseconds(leftMillis))
            .build());
    try {
      return client.execute(host, request, context, PooledConnections::answer);
    } catch (ConnectTimeoutException e) {
      throw new NotConnected(new HttpConnectTimeoutException("connect timed out"));
    } catch (ConnectException | NoRouteToHostException | UnknownHostException e) {
      throw new NotConnected(e);
    } catch (SocketTimeoutException e) {
      throw new HttpTimeoutException("request timed out");
    } catch (NoHttpResponseException e) {
      throw new EOFException(Connections.NO_ANSWER);
    }
  }

  private static HttpAnswer answer(ClassicHttpResponse response) throws IOException {
    var fields = new HashMap<String, String>();
    for (var header : response.getHeaders()) {
      fields.putIfAbsent(header.getName().toLowerCase(Locale.ROOT), header.getValue());
    }
    var entity = response.getEntity();
    return new HttpAnswer(
        response.getCode(), fields, entity == null ? new byte[0] : EntityUtils.toByteArray(entity));
  }

  @Override
  public void close() {
    client.close(CloseMode.GRACEFUL);
  }
}
