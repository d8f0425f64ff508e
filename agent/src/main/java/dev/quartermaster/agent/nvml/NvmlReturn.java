package dev.quartermaster.agent.nvml;

import java.util.Map;

/** {@code nvmlReturn_t} codes we act on, and their names for messages. */
public final class NvmlReturn {
  public static final int SUCCESS = 0;
  public static final int UNINITIALIZED = 1;
  public static final int INVALID_ARGUMENT = 2;
  public static final int NOT_SUPPORTED = 3;
  public static final int NO_PERMISSION = 4;
  public static final int NOT_FOUND = 6;
  public static final int INSUFFICIENT_SIZE = 7;
  public static final int DRIVER_NOT_LOADED = 9;
  public static final int TIMEOUT = 10;
  public static final int LIBRARY_NOT_FOUND = 12;
  public static final int FUNCTION_NOT_FOUND = 13;
  public static final int GPU_IS_LOST = 15;
  public static final int RESET_REQUIRED = 16;
  public static final int IN_USE = 19;
  public static final int INSUFFICIENT_RESOURCES = 23;
  public static final int VERSION_MISMATCH = 25;
  public static final int UNKNOWN = 999;

  private static final Map<Integer, String> NAMES =
      Map.ofEntries(
          Map.entry(SUCCESS, "SUCCESS"),
          Map.entry(UNINITIALIZED, "UNINITIALIZED"),
          Map.entry(INVALID_ARGUMENT, "INVALID_ARGUMENT"),
          Map.entry(NOT_SUPPORTED, "NOT_SUPPORTED"),
          Map.entry(NO_PERMISSION, "NO_PERMISSION"),
          Map.entry(NOT_FOUND, "NOT_FOUND"),
          Map.entry(INSUFFICIENT_SIZE, "INSUFFICIENT_SIZE"),
          Map.entry(DRIVER_NOT_LOADED, "DRIVER_NOT_LOADED"),
          Map.entry(TIMEOUT, "TIMEOUT"),
          Map.entry(LIBRARY_NOT_FOUND, "LIBRARY_NOT_FOUND"),
          Map.entry(FUNCTION_NOT_FOUND, "FUNCTION_NOT_FOUND"),
          Map.entry(GPU_IS_LOST, "GPU_IS_LOST"),
          Map.entry(RESET_REQUIRED, "RESET_REQUIRED"),
          Map.entry(17, "OPERATING_SYSTEM"),
          Map.entry(18, "LIB_RM_VERSION_MISMATCH"),
          Map.entry(IN_USE, "IN_USE"),
          Map.entry(INSUFFICIENT_RESOURCES, "INSUFFICIENT_RESOURCES"),
          Map.entry(VERSION_MISMATCH, "VERSION_MISMATCH"),
          Map.entry(27, "NOT_READY"),
          Map.entry(28, "GPU_NOT_FOUND"),
          Map.entry(UNKNOWN, "UNKNOWN"));

  private NvmlReturn() {}

  public static String name(int code) {
    return NAMES.getOrDefault(code, "code " + code);
  }
}
