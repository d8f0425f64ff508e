package dev.quartermaster.api.device.use;

/**
 * One counter of a node: {@code set/name} for a shared counter, or a device's own counter (one of
 * it, which only that device consumes) for a device that declares none.
 */
public record Counter(String set, String name) {
  @Override
  public String toString() {
    return set + "/" + name;
  }
}
