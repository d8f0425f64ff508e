package dev.quartermaster.cli.warm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Where a user's warm client listens, in one line of a file only that user can read: {@code PORT
 * REQUEST_SECRET REPLY_SECRET PID}. The launcher sends the request secret with each command (so no
 * other local user's process can run commands as this user); the warm client answers with the reply
 * secret, which never crosses the socket the other way, so a process that took the port after the
 * warm client died cannot pass off its own output as a command's.
 */
public record WarmEndpoint(int port, String requestSecret, String replySecret, long pid) {
  private static final SecureRandom RANDOM = new SecureRandom();

  public WarmEndpoint {
    if (port < 1 || port > 65_535) {
      throw new IllegalArgumentException("port " + port + " is not a TCP port");
    }
    for (var secret : new String[] {requestSecret, replySecret}) {
      if (!secret.matches("[0-9a-f]{64}")) {
        throw new IllegalArgumentException("a secret is 64 hex digits");
      }
    }
  }

  /** A new endpoint for this process listening on {@code port}, with secrets of its own. */
  static WarmEndpoint fresh(int port) {
    return new WarmEndpoint(port, secret(), secret(), ProcessHandle.current().pid());
  }

  String line() {
    return port + " " + requestSecret + " " + replySecret + " " + pid + "\n";
  }

  /**
   * Writes the line to {@code file}, readable by its owner alone from the moment it exists (a
   * temporary file made with that mode, then renamed over {@code file}).
   */
  void writeTo(Path file) throws IOException {
    var temporary =
        Files.createTempFile(
            file.toAbsolutePath().getParent(),
            file.getFileName() + ".",
            ".new",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    try {
      Files.writeString(temporary, line(), StandardCharsets.US_ASCII);
      try {
        Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(temporary);
    }
  }

  /** The endpoint {@code file} names, or empty when there is none or it is not one. */
  static Optional<WarmEndpoint> read(Path file) {
    try {
      var parts = Files.readString(file, StandardCharsets.US_ASCII).strip().split(" ");
      if (parts.length != 4) {
        return Optional.empty();
      }
      return Optional.of(
          new WarmEndpoint(
              Integer.parseInt(parts[0]), parts[1], parts[2], Long.parseLong(parts[3])));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException | IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private static String secret() {
    var bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }
}
