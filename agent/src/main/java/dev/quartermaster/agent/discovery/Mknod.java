package dev.quartermaster.agent.discovery;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Creates character device nodes (the JDK has no mknod). This is an I/O edge: it needs {@code
 * CAP_MKNOD} (root on a normal host) and fails with the system's own message otherwise.
 *
 * <p>libc's {@code mknod(2)} is called through the foreign-function API (a simulated root has
 * thousands of nodes: 2,048 IMEX channels; one process per node would take many seconds); where
 * libc has no {@code mknod} symbol (glibc before 2.33) the system's {@code mknod} tool is run
 * instead. Either way the mode is set exactly afterwards, not through the umask, as
 * nvidia-modprobe's mknod + chmod does.
 */
public final class Mknod {
  private static final long TIMEOUT_SECONDS = 30;
  private static final int S_IFCHR = 0020000;

  private Mknod() {}

  /** NVIDIA's own mode for its nodes (what nvidia-modprobe sets on a real host). */
  public static final int DRIVER_MODE = 0666;

  /**
   * A simulated root's mode: its nodes are real devices standing in for NVIDIA's, so only root may
   * open them (see {@link SimulatedDeviceRoot}).
   */
  public static final int SIMULATED_MODE = 0600;

  /** A node with NVIDIA's mode, {@link #DRIVER_MODE}. */
  public static void charDevice(Path path, DeviceNumber number) throws IOException {
    charDevice(path, number, DRIVER_MODE);
  }

  /** Creates a character device {@code number} at {@code path} with exactly {@code mode}. */
  public static void charDevice(Path path, DeviceNumber number, int mode) throws IOException {
    if ((mode & ~0777) != 0) {
      throw new IllegalArgumentException("not a permission mode: " + Integer.toOctalString(mode));
    }
    var libc = Libc.INSTANCE;
    if (libc.isPresent()) {
      libc.get().mknod(path, number, mode);
      Files.setPosixFilePermissions(path, permissions(mode));
    } else {
      tool(path, number, mode);
    }
  }

  /** {@code makedev(3)} as glibc packs it (the inverse of {@link DeviceNumber#fromRdev}). */
  static long rdev(DeviceNumber number) {
    long major = number.major();
    long minor = number.minor();
    return ((major & 0xfffL) << 8)
        | ((major & ~0xfffL) << 32)
        | (minor & 0xffL)
        | ((minor & ~0xffL) << 12);
  }

  private static Set<PosixFilePermission> permissions(int mode) {
    var out = EnumSet.noneOf(PosixFilePermission.class);
    var all = PosixFilePermission.values(); // OWNER_READ .. OTHERS_EXECUTE: bits 8 .. 0
    for (int i = 0; i < all.length; i++) {
      if ((mode & (1 << (8 - i))) != 0) {
        out.add(all[i]);
      }
    }
    return out;
  }

  private static void tool(Path path, DeviceNumber number, int mode) throws IOException {
    var process =
        new ProcessBuilder(
                "mknod",
                "-m",
                String.format("0%03o", mode),
                path.toString(),
                "c",
                Long.toString(number.major()),
                Long.toString(number.minor()))
            .redirectErrorStream(true)
            .start();
    try {
      if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IOException(
            "mknod " + path + " c " + number + ": no answer in " + TIMEOUT_SECONDS + " s");
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while creating " + path, e);
    }
    var output =
        new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    if (process.exitValue() != 0) {
      throw new IOException(
          "mknod "
              + path
              + " c "
              + number
              + " failed (exit "
              + process.exitValue()
              + "): "
              + output);
    }
  }

  /** libc's mknod and strerror, bound once; absent where the symbols are not found. */
  private record Libc(MethodHandle mknod, MethodHandle strerror, VarHandle errno, long stateBytes) {
    static final Optional<Libc> INSTANCE = bind();

    private static Optional<Libc> bind() {
      try {
        var linker = Linker.nativeLinker();
        var lookup = linker.defaultLookup();
        var mknodAddress = lookup.find("mknod");
        var strerrorAddress = lookup.find("strerror");
        if (mknodAddress.isEmpty() || strerrorAddress.isEmpty()) {
          return Optional.empty();
        }
        var state = Linker.Option.captureStateLayout();
        var capture = Linker.Option.captureCallState("errno");
        var mknod =
            linker.downcallHandle(
                mknodAddress.get(),
                FunctionDescriptor.of(
                    ValueLayout.JAVA_INT,
                    ValueLayout.ADDRESS,
                    ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_LONG),
                capture);
        var strerror =
            linker.downcallHandle(
                strerrorAddress.get(),
                FunctionDescriptor.of(
                    ValueLayout.ADDRESS.withTargetLayout(
                        java.lang.foreign.MemoryLayout.sequenceLayout(1024, ValueLayout.JAVA_BYTE)),
                    ValueLayout.JAVA_INT));
        var errno =
            state.varHandle(java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"));
        return Optional.of(new Libc(mknod, strerror, errno, state.byteSize()));
      } catch (RuntimeException | LinkageError e) {
        return Optional.empty(); // no native access here: the tool does it
      }
    }

    void mknod(Path path, DeviceNumber number, int mode) throws IOException {
      try (var arena = Arena.ofConfined()) {
        var state = arena.allocate(stateBytes);
        var name = arena.allocateFrom(path.toString());
        int rc = (int) mknod.invokeExact(state, name, S_IFCHR | mode, rdev(number));
        if (rc != 0) {
          int err = (int) errno.get(state, 0L);
          throw new IOException(
              "mknod "
                  + path
                  + " c "
                  + number
                  + " failed: "
                  + message(err)
                  + " (errno "
                  + err
                  + ")");
        }
      } catch (IOException | RuntimeException | Error e) {
        throw e;
      } catch (Throwable t) {
        throw new IOException("mknod " + path + " c " + number + " failed: " + t, t);
      }
    }

    private String message(int err) {
      try {
        var text = (MemorySegment) strerror.invokeExact(err);
        return text.getString(0);
      } catch (Throwable t) {
        return "error " + err;
      }
    }
  }
}
