package dev.quartermaster.agent.nvml;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * NVML ({@code libnvidia-ml.so.1}) bound through the foreign-function API: the calls discovery and
 * XID health monitoring need, with the C signatures of NVIDIA's {@code nvml.h}.
 *
 * <p>{@link #load()} never throws: an absent library or a missing symbol is {@link
 * NvmlLoad.Unavailable} with the reason. Versioned symbols ({@code _v2}) are preferred, with the
 * unversioned ones as fallback for old drivers (as go-nvml does). Device handles are opaque
 * pointers, kept as {@link MemorySegment}s. NVML is thread-safe; each call allocates its
 * out-parameters in its own confined arena.
 *
 * <p>Requires {@code --enable-native-access=ALL-UNNAMED} (or the module's name) to run without a
 * warning.
 */
@SuppressWarnings("restricted") // binding a native library is what this class is for
public final class NvmlLibrary implements AutoCloseable {
  /** The soname drivers install (the unversioned {@code .so} is often absent). */
  public static final String LIBRARY = "libnvidia-ml.so.1";

  private static final Linker LINKER = Linker.nativeLinker();
  private static final FunctionDescriptor VOID_TO_INT = FunctionDescriptor.of(JAVA_INT);

  private final Arena arena;
  private final String name;
  private final SymbolLookup lookup;
  private final MethodHandle init;
  private final MethodHandle shutdown;
  private final MethodHandle errorString;
  private final MethodHandle getCount;
  private final MethodHandle getHandleByIndex;
  private final MethodHandle getUuid;
  private final MethodHandle getName;
  private final MethodHandle getMinorNumber;
  private final MethodHandle getMemoryInfo;
  private final Optional<MethodHandle> getPciInfo;
  private final MethodHandle eventSetCreate;
  private final MethodHandle registerEvents;
  private final MethodHandle eventSetWait;
  private final MethodHandle eventSetFree;

  private NvmlLibrary(Arena arena, String name, SymbolLookup lookup) throws MissingSymbol {
    this.arena = arena;
    this.name = name;
    this.lookup = lookup;
    init = bind(lookup, VOID_TO_INT, "nvmlInit_v2", "nvmlInit");
    shutdown = bind(lookup, VOID_TO_INT, "nvmlShutdown");
    errorString = bind(lookup, FunctionDescriptor.of(ADDRESS, JAVA_INT), "nvmlErrorString");
    getCount =
        bind(
            lookup,
            FunctionDescriptor.of(JAVA_INT, ADDRESS),
            "nvmlDeviceGetCount_v2",
            "nvmlDeviceGetCount");
    getHandleByIndex =
        bind(
            lookup,
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS),
            "nvmlDeviceGetHandleByIndex_v2",
            "nvmlDeviceGetHandleByIndex");
    var stringCall = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT);
    getUuid = bind(lookup, stringCall, "nvmlDeviceGetUUID");
    getName = bind(lookup, stringCall, "nvmlDeviceGetName");
    var outParam = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
    getMinorNumber = bind(lookup, outParam, "nvmlDeviceGetMinorNumber");
    getMemoryInfo = bind(lookup, outParam, "nvmlDeviceGetMemoryInfo");
    getPciInfo = optional(lookup, outParam, "nvmlDeviceGetPciInfo_v3");
    eventSetCreate = bind(lookup, FunctionDescriptor.of(JAVA_INT, ADDRESS), "nvmlEventSetCreate");
    registerEvents =
        bind(
            lookup,
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS),
            "nvmlDeviceRegisterEvents");
    eventSetWait =
        bind(
            lookup,
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT),
            "nvmlEventSetWait_v2",
            "nvmlEventSetWait");
    eventSetFree = bind(lookup, FunctionDescriptor.of(JAVA_INT, ADDRESS), "nvmlEventSetFree");
  }

  /** Loads {@link #LIBRARY} the way the dynamic linker finds it. */
  public static NvmlLoad load() {
    return load(LIBRARY);
  }

  /** Loads NVML from {@code nameOrPath} (a soname, or an absolute path, e.g. a test double). */
  public static NvmlLoad load(String nameOrPath) {
    var arena = Arena.ofShared();
    try {
      var lookup = SymbolLookup.libraryLookup(nameOrPath, arena);
      return new NvmlLoad.Loaded(new NvmlLibrary(arena, nameOrPath, lookup));
    } catch (IllegalArgumentException e) {
      arena.close();
      return new NvmlLoad.Unavailable(
          "cannot load " + nameOrPath + " (no NVIDIA driver on this machine?): " + e.getMessage());
    } catch (MissingSymbol e) {
      arena.close();
      return new NvmlLoad.Unavailable(
          nameOrPath + " has no " + e.getMessage() + " (driver too old?)");
    } catch (IllegalCallerException e) {
      arena.close();
      return new NvmlLoad.Unavailable(
          "native access is not enabled (run java with --enable-native-access=ALL-UNNAMED): "
              + e.getMessage());
    }
  }

  public String name() {
    return name;
  }

  /**
   * {@code nvmlInit_v2}; pair every successful call with {@link #shutdown()} (NVML counts them).
   */
  public void init() throws NvmlException {
    check("nvmlInit_v2", call(() -> (int) init.invokeExact()));
  }

  /** {@code nvmlShutdown}. */
  public void shutdown() throws NvmlException {
    check("nvmlShutdown", call(() -> (int) shutdown.invokeExact()));
  }

  /** NVML's text for a return code. */
  public String errorString(int code) {
    try {
      var text = (MemorySegment) errorString.invokeExact(code);
      return text.equals(MemorySegment.NULL)
          ? NvmlReturn.name(code)
          : text.reinterpret(Long.MAX_VALUE).getString(0);
    } catch (Throwable t) {
      return NvmlReturn.name(code);
    }
  }

  public int deviceCount() throws NvmlException {
    try (var local = Arena.ofConfined()) {
      var out = local.allocate(JAVA_INT);
      check("nvmlDeviceGetCount_v2", call(() -> (int) getCount.invokeExact(out)));
      return out.get(JAVA_INT, 0);
    }
  }

  /** The opaque {@code nvmlDevice_t} of the GPU at {@code index}. */
  public MemorySegment handleByIndex(int index) throws NvmlException {
    try (var local = Arena.ofConfined()) {
      var out = local.allocate(ADDRESS);
      check(
          "nvmlDeviceGetHandleByIndex_v2(" + index + ")",
          call(() -> (int) getHandleByIndex.invokeExact(index, out)));
      return out.get(ADDRESS, 0);
    }
  }

  public String uuid(MemorySegment device) throws NvmlException {
    return string("nvmlDeviceGetUUID", getUuid, device);
  }

  public String deviceName(MemorySegment device) throws NvmlException {
    return string("nvmlDeviceGetName", getName, device);
  }

  public int minorNumber(MemorySegment device) throws NvmlException {
    try (var local = Arena.ofConfined()) {
      var out = local.allocate(JAVA_INT);
      check("nvmlDeviceGetMinorNumber", call(() -> (int) getMinorNumber.invokeExact(device, out)));
      return out.get(JAVA_INT, 0);
    }
  }

  /** Total framebuffer memory in bytes ({@code nvmlDeviceGetMemoryInfo}, the v1 struct). */
  public long memoryTotal(MemorySegment device) throws NvmlException {
    try (var local = Arena.ofConfined()) {
      var out = local.allocate(NvmlStructs.MEMORY);
      check("nvmlDeviceGetMemoryInfo", call(() -> (int) getMemoryInfo.invokeExact(device, out)));
      return NvmlStructs.memoryTotal(out);
    }
  }

  /** The PCI bus id ({@code nvmlDeviceGetPciInfo_v3}), when the library has the call. */
  public Optional<String> pciBusId(MemorySegment device) throws NvmlException {
    if (getPciInfo.isEmpty()) {
      return Optional.empty();
    }
    var handle = getPciInfo.get();
    try (var local = Arena.ofConfined()) {
      var out = local.allocate(NvmlStructs.PCI_INFO_SIZE, 8);
      check("nvmlDeviceGetPciInfo_v3", call(() -> (int) handle.invokeExact(device, out)));
      return Optional.of(
          NvmlStructs.cString(out, NvmlStructs.PCI_BUS_ID_OFFSET, NvmlStructs.PCI_BUS_ID_LENGTH));
    }
  }

  /** {@code nvmlEventSetCreate}; free the set with {@link #eventSetFree}. */
  public MemorySegment eventSetCreate() throws NvmlException {
    try (var local = Arena.ofConfined()) {
      var out = local.allocate(ADDRESS);
      check("nvmlEventSetCreate", call(() -> (int) eventSetCreate.invokeExact(out)));
      return out.get(ADDRESS, 0);
    }
  }

  /** {@code nvmlDeviceRegisterEvents}; events before this call are lost. */
  public void registerEvents(MemorySegment device, long eventTypes, MemorySegment set)
      throws NvmlException {
    check(
        "nvmlDeviceRegisterEvents",
        call(() -> (int) registerEvents.invokeExact(device, eventTypes, set)));
  }

  /**
   * {@code nvmlEventSetWait_v2}: the next event, or empty on timeout (NVML also says timeout when
   * interrupted).
   */
  public Optional<NvmlEvent> eventSetWait(MemorySegment set, int timeoutMs) throws NvmlException {
    try (var local = Arena.ofConfined()) {
      var data = local.allocate(NvmlStructs.EVENT_DATA);
      int rc = call(() -> (int) eventSetWait.invokeExact(set, data, timeoutMs));
      if (rc == NvmlReturn.TIMEOUT) {
        return Optional.empty();
      }
      check("nvmlEventSetWait_v2", rc);
      return Optional.of(NvmlStructs.event(data));
    }
  }

  public void eventSetFree(MemorySegment set) throws NvmlException {
    check("nvmlEventSetFree", call(() -> (int) eventSetFree.invokeExact(set)));
  }

  /**
   * The MIG calls ({@link NvmlMigFunctions}), bound now; refused ({@link
   * NvmlReturn#FUNCTION_NOT_FOUND}) by a driver older than MIG.
   */
  public NvmlMigFunctions mig() throws NvmlException {
    try {
      return new NvmlMigFunctions(this, lookup);
    } catch (MissingSymbol e) {
      throw new NvmlException(
          e.getMessage(),
          NvmlReturn.FUNCTION_NOT_FOUND,
          name + " has no such call (driver too old?)");
    }
  }

  /** Unloads the library (after every {@link #init()} was matched by {@link #shutdown()}). */
  @Override
  public void close() {
    arena.close();
  }

  private String string(String function, MethodHandle handle, MemorySegment device)
      throws NvmlException {
    try (var local = Arena.ofConfined()) {
      var buffer = local.allocate(NvmlStructs.STRING_BUFFER);
      check(
          function,
          call(() -> (int) handle.invokeExact(device, buffer, NvmlStructs.STRING_BUFFER)));
      return NvmlStructs.cString(buffer, 0, NvmlStructs.STRING_BUFFER);
    }
  }

  void check(String function, int rc) throws NvmlException {
    if (rc != NvmlReturn.SUCCESS) {
      throw new NvmlException(function, rc, errorString(rc));
    }
  }

  @FunctionalInterface
  interface NativeCall {
    int invoke() throws Throwable;
  }

  static int call(NativeCall c) {
    try {
      return c.invoke();
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      // invokeExact declares Throwable; a downcall with these descriptors throws nothing checked.
      throw new IllegalStateException("native call failed", t);
    }
  }

  static MethodHandle bind(SymbolLookup lookup, FunctionDescriptor descriptor, String... names)
      throws MissingSymbol {
    for (var n : names) {
      var symbol = lookup.find(n);
      if (symbol.isPresent()) {
        return LINKER.downcallHandle(symbol.get(), descriptor);
      }
    }
    throw new MissingSymbol(String.join(" or ", names));
  }

  private static Optional<MethodHandle> optional(
      SymbolLookup lookup, FunctionDescriptor descriptor, String name) {
    return lookup.find(name).map(s -> LINKER.downcallHandle(s, descriptor));
  }

  static final class MissingSymbol extends Exception {
    MissingSymbol(String names) {
      super(names);
    }
  }
}
