package dev.quartermaster.server.dashboard;

/**
 * One file of the dashboard as it is served: read from the jar once, at start, so a request never
 * touches the class path and the set of answerable paths is fixed.
 *
 * @param path the request path it answers, e.g. {@code /dashboard/app.js}
 * @param contentType the full Content-Type header, with charset
 * @param etag a strong validator derived from the bytes, quoted as HTTP wants it
 */
public record DashboardFile(String path, String contentType, byte[] body, String etag) {

  public DashboardFile {
    body = body.clone();
  }

  @Override
  public byte[] body() {
    return body.clone();
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof DashboardFile f && f.path.equals(path) && f.etag.equals(etag);
  }

  @Override
  public int hashCode() {
    return path.hashCode() * 31 + etag.hashCode();
  }

  @Override
  public String toString() {
    return "DashboardFile["
        + path
        + ", "
        + contentType
        + ", "
        + body.length
        + " bytes, "
        + etag
        + "]";
  }
}
