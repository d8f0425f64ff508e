package dev.quartermaster.store.sqlite.nativelib;

import dev.quartermaster.core.files.OwnerOnly;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteJDBCLoader;
import org.sqlite.util.LibraryLoaderUtil;
import org.sqlite.util.OSInfo;

/**
 * sqlite-jdbc's native library, kept once per user, sqlite-jdbc version and platform.
 *
 * <p>Left alone, sqlite-jdbc copies its library out of its jar into {@code java.io.tmpdir} at every
 * JVM start ({@code sqlite-<version>-<uuid>-libsqlitejdbc.so}, 1.1 MB, with a {@code .lck}),
 * removed only at a clean exit: every killed process left one behind. {@link #prepare} instead
 * keeps one copy in {@code ${XDG_CACHE_HOME:-~/.cache}/quartermaster/sqlite-<version>-<os>-<arch>/}
 * and points sqlite-jdbc at it ({@code org.sqlite.lib.path}, {@code org.sqlite.lib.name}). When
 * that cannot be done a warning says why, and sqlite-jdbc does as before; so it does when the
 * library there fails to load.
 */
public final class SqliteNativeLibrary {
  static final String PATH_PROPERTY = "org.sqlite.lib.path";
  static final String NAME_PROPERTY = "org.sqlite.lib.name";
  private static final Logger LOG = LoggerFactory.getLogger(SqliteNativeLibrary.class);
  private static boolean prepared; // guarded by the class

  private SqliteNativeLibrary() {}

  /**
   * Points sqlite-jdbc at the kept library, copying it there first if need be; once per JVM, and
   * before the first SQLite connection (which loads the library). A path someone set already wins.
   */
  public static synchronized void prepare() {
    if (prepared) {
      return;
    }
    prepared = true;
    if (System.getProperty(PATH_PROPERTY) != null) {
      return;
    }
    cacheRoot(System.getenv(), System.getProperty("user.home", ""))
        .flatMap(SqliteNativeLibrary::keepIn)
        .ifPresent(
            file -> {
              System.setProperty(PATH_PROPERTY, file.getParent().toString());
              System.setProperty(NAME_PROPERTY, file.getFileName().toString());
            });
  }

  /**
   * {@code $XDG_CACHE_HOME/quartermaster}, else {@code ~/.cache/quartermaster}; relative ones do
   * not count (XDG).
   */
  static Optional<Path> cacheRoot(Map<String, String> env, String home) {
    var base =
        Optional.ofNullable(env.get("XDG_CACHE_HOME"))
            .map(Path::of)
            .filter(Path::isAbsolute)
            .or(
                () ->
                    Optional.of(home)
                        .filter(h -> !h.isBlank())
                        .map(Path::of)
                        .filter(Path::isAbsolute)
                        .map(h -> h.resolve(".cache")));
    if (base.isEmpty()) {
      warn(
          "no cache directory (neither XDG_CACHE_HOME nor the home directory is an absolute path)");
    }
    return base.map(b -> b.resolve("quartermaster"));
  }

  /** The library kept under {@code cacheRoot}; empty, after a warning, when it cannot be. */
  static Optional<Path> keepIn(Path cacheRoot) {
    var folder =
        OSInfo.getNativeLibFolderPathForCurrentOS(); // Linux/x86_64, Linux-Musl/aarch64, ...
    var resource =
        LibraryLoaderUtil.getNativeLibResourcePath() + "/" + LibraryLoaderUtil.getNativeLibName();
    var dir =
        cacheRoot.resolve(
            "sqlite-" + SQLiteJDBCLoader.getVersion() + "-" + folder.replace('/', '-'));
    var url = SQLiteJDBCLoader.class.getResource(resource);
    if (url == null) {
      warn("sqlite-jdbc has no " + resource + " for this platform");
      return Optional.empty();
    }
    try {
      OwnerOnly.directory(cacheRoot);
      return Optional.of(KeptLibrary.keep(LibraryResource.of(url), dir).file());
    } catch (IOException | RuntimeException e) {
      warn("cannot keep it in " + dir + ": " + e);
      return Optional.empty();
    }
  }

  private static void warn(String why) {
    LOG.warn(
        "SQLite's native library: {}; this process extracts its own copy into {} instead, left there if the "
            + "process is killed",
        why,
        System.getProperty("org.sqlite.tmpdir", System.getProperty("java.io.tmpdir")));
  }
}
