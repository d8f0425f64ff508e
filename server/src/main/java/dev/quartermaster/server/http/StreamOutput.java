package dev.quartermaster.server.http;

import java.io.IOException;

/**
 * The body of a streamed answer (a watch), as its writer needs it beyond an {@link
 * java.io.OutputStream}: how much the client has not taken yet, lines sent without a copy, and a
 * way to end it without waiting for a client that stopped reading.
 */
public interface StreamOutput {
  /** Bytes written to this answer that its connection has not handed to the socket yet. */
  long pendingBytes();

  /**
   * Sends {@code line} whole and flushes it. The array is not copied: the caller never changes it
   * (a watch line, encoded once and shared by every stream that sends it). Waits while the client
   * is not reading, as every write does, unless {@link #stopWaiting} was called.
   */
  void writeLine(byte[] line) throws IOException;

  /**
   * Caps what the operating system buffers for this connection's unsent bytes at about {@code
   * bytes} (it may double it). A stream's lines then wait where the server counts them: with the
   * kernel's own tuning, a client that stopped reading had megabytes waiting in its socket that no
   * bound saw.
   */
  void capSocketBuffer(int bytes);

  /**
   * From now on no write waits for the client, and a write waiting now returns: for the last line
   * of a stream whose client fell too far behind, which the client reads when it reads again.
   */
  void stopWaiting();
}
