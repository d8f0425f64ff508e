package dev.quartermaster.agent.nvml;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Builds the test double of libnvidia-ml.so.1 ({@code nvml/nvml-stub.c}) with gcc and exposes its
 * test controls. Empty when gcc is not installed.
 */
@SuppressWarnings("restricted")
final class NvmlStub implements AutoCloseable {
  private final Path library;
  private final Arena arena = Arena.ofShared();
  private final MethodHandle pushXid;
  private final MethodHandle pushInstanceXid;
  private final MethodHandle failWait;
  private final MethodHandle inits;
  private final MethodHandle reset;
  private final SymbolLookup lookup;

  private NvmlStub(Path library) {
    this.library = library;
    lookup = SymbolLookup.libraryLookup(library, arena);
    var linker = Linker.nativeLinker();
    pushXid =
        linker.downcallHandle(
            lookup.find("stub_push_xid").orElseThrow(),
            FunctionDescriptor.ofVoid(JAVA_INT, JAVA_LONG));
    pushInstanceXid =
        linker.downcallHandle(
            lookup.find("stub_push_instance_xid").orElseThrow(),
            FunctionDescriptor.ofVoid(JAVA_INT, JAVA_LONG, JAVA_INT));
    failWait =
        linker.downcallHandle(
            lookup.find("stub_fail_wait").orElseThrow(), FunctionDescriptor.ofVoid(JAVA_INT));
    inits =
        linker.downcallHandle(
            lookup.find("stub_inits").orElseThrow(), FunctionDescriptor.of(JAVA_INT));
    reset =
        linker.downcallHandle(lookup.find("stub_reset").orElseThrow(), FunctionDescriptor.ofVoid());
  }

  static Optional<NvmlStub> build(Path dir) throws IOException, InterruptedException {
    var source = dir.resolve("nvml-stub.c");
    try (var in = NvmlStub.class.getResourceAsStream("/nvml/nvml-stub.c")) {
      Files.write(source, in.readAllBytes());
    }
    var library = dir.resolve("libnvidia-ml-stub.so.1");
    Process gcc;
    try {
      gcc =
          new ProcessBuilder(
                  "gcc",
                  "-shared",
                  "-fPIC",
                  "-o",
                  library.toString(),
                  source.toString(),
                  "-lpthread")
              .redirectErrorStream(true)
              .start();
    } catch (IOException e) {
      if ("true".equals(System.getenv("CI"))) {
        // CI installs gcc (.ci/run): a missing one there is a failure, never a silent skip.
        throw new IOException(
            "gcc is not installed, and CI=true needs it for the NVML test double");
      }
      return Optional.empty();
    }
    if (!gcc.waitFor(60, TimeUnit.SECONDS) || gcc.exitValue() != 0) {
      throw new IOException("gcc failed: " + new String(gcc.getInputStream().readAllBytes()));
    }
    return Optional.of(new NvmlStub(library));
  }

  String path() {
    return library.toString();
  }

  void pushXid(int index, long xid) throws Throwable {
    pushXid.invokeExact(index, xid);
  }

  /** An XID on GPU {@code index} that names its GPU instance {@code gi}. */
  void pushInstanceXid(int index, long xid, int gi) throws Throwable {
    pushInstanceXid.invokeExact(index, xid, gi);
  }

  void failWait(int rc) throws Throwable {
    failWait.invokeExact(rc);
  }

  int inits() throws Throwable {
    return (int) inits.invokeExact();
  }

  /**
   * Calls test control {@code symbol} (a void C function of ints), e.g. {@code stub_mig_refuse}.
   */
  void control(String symbol, int... args) throws Throwable {
    var types = new java.lang.foreign.MemoryLayout[args.length];
    java.util.Arrays.fill(types, JAVA_INT);
    var handle =
        Linker.nativeLinker()
            .downcallHandle(lookup.find(symbol).orElseThrow(), FunctionDescriptor.ofVoid(types));
    handle.invokeWithArguments(java.util.Arrays.stream(args).boxed().toArray());
  }

  /** How many GPU instances the stub's device 0 has now. */
  int migInstances() throws Throwable {
    var handle =
        Linker.nativeLinker()
            .downcallHandle(
                lookup.find("stub_mig_instances").orElseThrow(), FunctionDescriptor.of(JAVA_INT));
    return (int) handle.invokeExact();
  }

  @Override
  public void close() {
    try {
      reset.invokeExact();
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
    arena.close();
  }
}
