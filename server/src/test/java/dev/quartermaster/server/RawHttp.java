package dev.quartermaster.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** HTTP spoken by hand over a socket: for requests no well-behaved client would send. */
final class RawHttp {
  private RawHttp() {}

  /**
   * One response as read off the wire; {@code status} is 0 when the server closed without a word.
   */
  record Response(int status, Map<String, String> headers, String body) {
    String header(String name) {
      return headers.getOrDefault(name.toLowerCase(Locale.ROOT), "");
    }

    boolean isJson() {
      return header("content-type").startsWith("application/json")
          && body.startsWith("{")
          && body.endsWith("}");
    }
  }

  /**
   * Sends {@code request} on a new connection and reads every response until the server closes or
   * goes quiet.
   */
  static List<Response> exchange(int port, byte[] request) throws IOException {
    try (var socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
      socket.setSoTimeout(5_000);
      try {
        socket.getOutputStream().write(request);
        socket.getOutputStream().flush();
      } catch (IOException e) {
        // the server may answer and close before reading all of an oversized request
      }
      return readAll(socket.getInputStream());
    }
  }

  static Response one(int port, String request) throws IOException {
    var responses = exchange(port, request.getBytes(StandardCharsets.ISO_8859_1));
    return responses.isEmpty() ? new Response(0, Map.of(), "") : responses.getFirst();
  }

  static List<Response> readAll(InputStream in) throws IOException {
    var responses = new ArrayList<Response>();
    try {
      while (true) {
        var statusLine = line(in);
        if (statusLine == null) {
          return responses;
        }
        var headers = new LinkedHashMap<String, String>();
        for (String h; (h = line(in)) != null && !h.isEmpty(); ) {
          int colon = h.indexOf(':');
          headers.put(
              h.substring(0, colon).strip().toLowerCase(Locale.ROOT),
              h.substring(colon + 1).strip());
        }
        int status = Integer.parseInt(statusLine.split(" ")[1]);
        var body = new ByteArrayOutputStream();
        if (headers.containsKey("content-length")) {
          body.write(in.readNBytes(Integer.parseInt(headers.get("content-length"))));
        } else if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
          for (int size; (size = Integer.parseInt(line(in), 16)) > 0; ) {
            body.write(in.readNBytes(size));
            line(in);
          }
          line(in);
        }
        responses.add(new Response(status, headers, body.toString(StandardCharsets.UTF_8)));
        if (status == 100) {
          responses.removeLast();
        }
        if ("close".equalsIgnoreCase(headers.get("connection"))) {
          return responses;
        }
      }
    } catch (SocketTimeoutException | java.net.SocketException e) {
      return responses;
    }
  }

  private static String line(InputStream in) throws IOException {
    var out = new StringBuilder();
    int b;
    while ((b = in.read()) != -1 && b != '\n') {
      if (b != '\r') {
        out.append((char) b);
      }
    }
    return b == -1 && out.isEmpty() ? null : out.toString();
  }
}
