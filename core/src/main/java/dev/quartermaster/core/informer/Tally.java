package dev.quartermaster.core.informer;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * A counting index of an informer's cache: each object is counted under the key {@code keyOf} gives
 * it (none: not counted), in the slot {@code slotOf} gives it, of {@code slots}. Kept with the
 * cache under its lock, so a decision reads in one look how many of a group's objects are in each
 * state ({@link Indexer#tally}), where reading the objects grows with the group.
 */
public record Tally<T>(
    Function<? super T, Optional<String>> keyOf, ToIntFunction<? super T> slotOf, int slots) {
  public Tally {
    Objects.requireNonNull(keyOf, "keyOf");
    Objects.requireNonNull(slotOf, "slotOf");
    if (slots < 1) {
      throw new IllegalArgumentException("a tally has at least one slot, got " + slots);
    }
  }
}
