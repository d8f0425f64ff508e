package dev.quartermaster.api.client.http;

import dev.quartermaster.core.env.OutsideEnv;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;

/**
 * One HTTP/1.1 connection to a server, blocking, used by one call at a time and kept between calls
 * when the answer allows it. Why not the JDK's {@code HttpClient} for these calls: each of its
 * exchanges crosses to its selector thread and back through futures, which cost a single client
 * about 0.2 ms per call on loopback, as much as the server's own work on a create.
 *
 * <p>Nor Apache HttpClient 5.6 (classic, pooled), measured beside this by {@code ./qm bench
 * clients} (part of {@code ./qm bench api}; one server, rounds interleaved, 2 busy cores). Its
 * rates were 0.79-1.08x of these (GET, LIST, status PUT, 8 callers; four runs of 15-21 rounds),
 * within the 20 % it was allowed to lose, but each call cost the caller 7-52 % more CPU, and the
 * CLI decided it: the library loads some 310 classes and starts SLF4J and with it logback, so
 * {@code qm get nodes} (AOT-cached, same server, interleaved) took 398 ms of CPU against 177 here
 * (453 ms wall against 229), and with logging switched off still 243 ms: past the 200 ms that
 * command has. Netty's client codec was not tried: it is asynchronous, each call would cross
 * threads as the JDK's does.
 *
 * <p>Every read runs against the call's deadline, so a server that stops answering (or trickles
 * bytes) costs at most that. The socket is a {@link SocketChannel}'s, so that {@link #stillOpen}
 * can look without blocking whether the server closed the connection while it sat idle: that is the
 * case its keep-alive timer creates, and a request sent into it would fail for nothing.
 */
@OutsideEnv("socket read deadlines are I/O at the edge")
final class KeptConnection implements AutoCloseable {
  /** Longest status line or header line read; longer answers are not from our server. */
  private static final int MAX_LINE = 16 * 1024;

  private static final int MAX_HEADERS = 200;

  static final String NO_ANSWER = Connections.NO_ANSWER;

  private final SocketChannel channel;
  private final Socket socket;
  private final DeadlineInput deadline;
  private final InputStream in;
  private final OutputStream out;
  private final String host;

  /** Whether the last answer left the connection clean for another request. */
  private boolean reusable;

  private KeptConnection(SocketChannel channel, Socket socket, String host) throws IOException {
    this.channel = channel;
    this.socket = socket;
    this.host = host;
    this.deadline = new DeadlineInput(socket);
    this.in = new BufferedInputStream(deadline, 16 * 1024);
    this.out = new BufferedOutputStream(socket.getOutputStream(), 16 * 1024);
  }

  /**
   * Connects to {@code base} ({@code http} or {@code https}), within {@code connectTimeoutMillis}.
   * Over https the first handshake offers one key exchange, X25519, which every server we know
   * speaks: the JDK otherwise also makes a P-256 share, whose first generation builds its tables,
   * about 60 ms of a fresh command's handshake. A server that refuses it gets a second handshake
   * with the JDK's whole list (TLS 1.3 requires only P-256 of a server).
   */
  static KeptConnection open(URI base, Optional<SSLContext> tls, int connectTimeoutMillis)
      throws IOException {
    if (!base.getScheme().equalsIgnoreCase("https")) {
      return open(base, tls, connectTimeoutMillis, false);
    }
    try {
      return open(base, tls, connectTimeoutMillis, true);
    } catch (SSLException e) {
      // A refusal of the group comes as whatever alert the server picks (the JDK's: unexpected
      // message); the second handshake reports any failure that is not about the group.
      return open(base, tls, connectTimeoutMillis, false);
    }
  }

  private static KeptConnection open(
      URI base, Optional<SSLContext> tls, int connectTimeoutMillis, boolean x25519Only)
      throws IOException {
    boolean secure = base.getScheme().equalsIgnoreCase("https");
    int port = base.getPort() != -1 ? base.getPort() : secure ? 443 : 80;
    var hostName = base.getHost();
    var channel = SocketChannel.open();
    try {
      var plain = channel.socket();
      plain.setTcpNoDelay(true);
      try {
        plain.connect(new InetSocketAddress(unbracketed(hostName), port), connectTimeoutMillis);
      } catch (SocketTimeoutException e) {
        throw new HttpConnectTimeoutException("connect timed out");
      }
      Socket socket = plain;
      if (secure) {
        var context = tls.isPresent() ? tls.get() : defaultContext();
        var ssl =
            (SSLSocket)
                context.getSocketFactory().createSocket(plain, unbracketed(hostName), port, true);
        var parameters = ssl.getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm(
            "HTTPS"); // the certificate must name this host
        if (x25519Only) {
          parameters.setNamedGroups(new String[] {"x25519"});
        }
        ssl.setSSLParameters(parameters);
        ssl.setSoTimeout(connectTimeoutMillis);
        ssl.startHandshake();
        socket = ssl;
      }
      var hostHeader = hostName + (base.getPort() != -1 ? ":" + base.getPort() : "");
      return new KeptConnection(channel, socket, hostHeader);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  /**
   * Sends one request and reads its whole answer by {@code deadlineNanos} ({@link
   * System#nanoTime}).
   *
   * @param target the path and query, already encoded
   * @param headers sent as given, after {@code Host}; {@code Content-Length} is added for a body
   */
  HttpAnswer exchange(
      String method,
      String target,
      Map<String, String> headers,
      Optional<byte[]> body,
      long deadlineNanos)
      throws IOException {
    deadline.until(deadlineNanos);
    var head =
        new StringBuilder(256)
            .append(method)
            .append(' ')
            .append(target)
            .append(" HTTP/1.1\r\nHost: ")
            .append(host)
            .append("\r\n");
    headers.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
    body.ifPresent(b -> head.append("Content-Length: ").append(b.length).append("\r\n"));
    head.append("\r\n");
    try {
      out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
      if (body.isPresent()) {
        out.write(body.get());
      }
      out.flush();
    } catch (IOException sending) {
      // A server may answer before it has read the whole body (a 413) and then close: its answer
      // says more than the broken pipe does, when it is there to read.
      try {
        var answer = readAnswer(method);
        reusable = false; // the request was cut short: nothing more goes on this connection
        return answer;
      } catch (IOException noAnswer) {
        sending.addSuppressed(noAnswer);
        throw sending;
      }
    }
    return readAnswer(method);
  }

  /** Whether the last answer left the connection clean for another request. */
  boolean reusable() {
    return reusable;
  }

  /**
   * Whether an idle connection can carry a request: the server has neither closed it nor sent
   * anything unasked (a 408, a TLS alert). Looks without blocking; any doubt says no.
   */
  boolean stillOpen() {
    if (!reusable || !channel.isOpen()) {
      return false;
    }
    try {
      synchronized (channel.blockingLock()) {
        channel.configureBlocking(false);
        try {
          return channel.read(ByteBuffer.allocate(1)) == 0;
        } finally {
          channel.configureBlocking(true);
        }
      }
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException ignored) {
      // nothing more to do with a connection being dropped
    }
    try {
      channel.close();
    } catch (IOException ignored) {
      // as above
    }
  }

  private HttpAnswer readAnswer(String method) throws IOException {
    reusable = false;
    var status = readLine(true);
    if (!status.startsWith("HTTP/1.") || status.length() < 12 || status.charAt(8) != ' ') {
      throw new IOException("not an HTTP/1.x answer: " + printable(status));
    }
    int code;
    try {
      code = Integer.parseInt(status.substring(9, 12));
    } catch (NumberFormatException e) {
      throw new IOException("not an HTTP status: " + printable(status));
    }
    var fields = new HashMap<String, String>();
    for (int n = 0; ; n++) {
      var line = readLine(false);
      if (line.isEmpty()) {
        break;
      }
      if (n == MAX_HEADERS) {
        throw new IOException("more than " + MAX_HEADERS + " header lines in the answer");
      }
      int colon = line.indexOf(':');
      if (colon > 0) {
        fields.putIfAbsent(
            line.substring(0, colon).trim().toLowerCase(Locale.ROOT),
            line.substring(colon + 1).trim());
      }
    }
    boolean http11 = status.startsWith("HTTP/1.1");
    var connection = fields.getOrDefault("connection", "").toLowerCase(Locale.ROOT);
    boolean keep = http11 ? !connection.contains("close") : connection.contains("keep-alive");
    byte[] body;
    if (method.equals("HEAD") || code == 204 || code == 304 || code / 100 == 1) {
      body = new byte[0];
    } else if (fields
        .getOrDefault("transfer-encoding", "")
        .toLowerCase(Locale.ROOT)
        .contains("chunked")) {
      body = readChunked();
    } else if (fields.containsKey("content-length")) {
      long length;
      try {
        length = Long.parseLong(fields.get("content-length"));
      } catch (NumberFormatException e) {
        throw new IOException(
            "Content-Length is not a number: " + printable(fields.get("content-length")));
      }
      if (length < 0 || length > Integer.MAX_VALUE - 8) {
        throw new IOException("Content-Length out of range: " + length);
      }
      body = readExactly((int) length);
    } else {
      body = in.readAllBytes(); // delimited by the end of the connection
      keep = false;
    }
    reusable = keep;
    return new HttpAnswer(code, fields, body);
  }

  private byte[] readChunked() throws IOException {
    var body = new ByteArrayOutputStream();
    while (true) {
      var size = readLine(false);
      int semicolon = size.indexOf(';');
      int length;
      try {
        length =
            Integer.parseInt((semicolon >= 0 ? size.substring(0, semicolon) : size).trim(), 16);
      } catch (NumberFormatException e) {
        throw new IOException("bad chunk size: " + printable(size));
      }
      if (length < 0) {
        throw new IOException("bad chunk size: " + printable(size));
      }
      if (length == 0) {
        while (!readLine(false).isEmpty()) {
          // trailers: none expected, none kept
        }
        return body.toByteArray();
      }
      body.write(readExactly(length));
      if (!readLine(false).isEmpty()) {
        throw new IOException("a chunk did not end where its size said");
      }
    }
  }

  private byte[] readExactly(int length) throws IOException {
    var bytes = in.readNBytes(length);
    if (bytes.length != length) {
      throw new EOFException("the answer ended after " + bytes.length + " of " + length + " bytes");
    }
    return bytes;
  }

  /** A line without its CRLF; at the very start, the end of the stream is {@link #NO_ANSWER}. */
  private String readLine(boolean first) throws IOException {
    var line = new StringBuilder(64);
    while (true) {
      int c = in.read();
      if (c < 0) {
        throw new EOFException(
            first && line.isEmpty() ? NO_ANSWER : "the answer ended inside its head");
      }
      if (c == '\n') {
        int end = line.length();
        return end > 0 && line.charAt(end - 1) == '\r'
            ? line.substring(0, end - 1)
            : line.toString();
      }
      if (line.length() == MAX_LINE) {
        throw new IOException("a line of the answer's head is longer than " + MAX_LINE + " bytes");
      }
      line.append((char) c);
    }
  }

  private static String printable(String text) {
    var cut = text.length() > 100 ? text.substring(0, 100) + "..." : text;
    return cut.replaceAll("[^\\x20-\\x7e]", "?");
  }

  private static String unbracketed(String host) {
    return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
  }

  private static SSLContext defaultContext() throws IOException {
    try {
      return SSLContext.getDefault();
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IOException("no default TLS context: " + e.getMessage(), e);
    }
  }

  /**
   * The socket's stream read against a deadline: each read waits at most the time left, and a read
   * past it is an {@link HttpTimeoutException}, as the JDK client reports it.
   */
  @OutsideEnv("socket read deadlines are I/O at the edge")
  private static final class DeadlineInput extends FilterInputStream {
    private final Socket socket;
    private long deadlineNanos;

    DeadlineInput(Socket socket) throws IOException {
      super(socket.getInputStream());
      this.socket = socket;
    }

    void until(long nanos) {
      deadlineNanos = nanos;
    }

    @Override
    public int read() throws IOException {
      var one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      long left = deadlineNanos - System.nanoTime();
      if (left <= 0) {
        throw new HttpTimeoutException("request timed out");
      }
      socket.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, left / 1_000_000)));
      try {
        return super.read(b, off, len);
      } catch (SocketTimeoutException e) {
        throw new HttpTimeoutException("request timed out");
      }
    }
  }
}
