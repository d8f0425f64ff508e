package dev.quartermaster.agent.nvml;

/** An NVML call returned an error: which call, the code, and NVML's own words for it. */
public final class NvmlException extends Exception {
  private final String function;
  private final int code;

  public NvmlException(String function, int code, String text) {
    super(function + ": " + text + " (" + NvmlReturn.name(code) + ")");
    this.function = function;
    this.code = code;
  }

  public String function() {
    return function;
  }

  public int code() {
    return code;
  }
}
