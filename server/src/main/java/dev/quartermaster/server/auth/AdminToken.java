package dev.quartermaster.server.auth;

import dev.quartermaster.core.env.OutsideEnv;
import dev.quartermaster.core.files.DurableFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The admin token file, {@code <data>/admin.token}: created on first start (32 random bytes as hex,
 * mode 0600) and read on every later one, so restarts keep the token operators already use.
 */
@OutsideEnv("a credential must come from a cryptographic source, never a seeded one")
public final class AdminToken {
  public static final String FILE_NAME = "admin.token";
  private static final int BYTES = 32;

  private AdminToken() {}

  public static Path file(Path dataDir) {
    return dataDir.resolve(FILE_NAME);
  }

  /** The token in {@code <dataDir>/admin.token}, creating the file first if it is missing. */
  public static String loadOrCreate(Path dataDir) throws IOException {
    var file = file(dataDir);
    if (!Files.exists(file)) {
      create(dataDir, file);
    }
    var token = Files.readString(file, StandardCharsets.UTF_8).strip();
    if (token.isEmpty()) {
      throw new IOException(file + " is empty; delete it to have a new admin token generated");
    }
    return token;
  }

  /**
   * Makes {@code <dataDir>/admin.token} hold {@code token} (a cluster's shared token, from the
   * store), replacing the file atomically when it differs.
   */
  public static void install(Path dataDir, String token) throws IOException {
    DurableFile.replaceIfChanged(file(dataDir), (token + "\n").getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Writes the token to a private temp file, syncs it, then hard-links it into place: the link
   * either appears complete or fails because another process won the race, never half-written.
   */
  private static void create(Path dataDir, Path file) throws IOException {
    var bytes = new byte[BYTES];
    new SecureRandom().nextBytes(bytes);
    var token = HexFormat.of().formatHex(bytes) + "\n";
    var temp =
        Files.createTempFile(
            dataDir,
            ".admin.token-",
            ".tmp",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    try {
      try (var channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
        channel.write(ByteBuffer.wrap(token.getBytes(StandardCharsets.UTF_8)));
        channel.force(true);
      }
      Files.createLink(file, temp);
    } catch (FileAlreadyExistsException raced) {
      // another server process created it first: use theirs
    } finally {
      Files.deleteIfExists(temp);
    }
  }
}
