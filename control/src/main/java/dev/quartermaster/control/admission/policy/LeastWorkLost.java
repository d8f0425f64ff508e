package dev.quartermaster.control.admission.policy;

import dev.quartermaster.api.queue.Admitted;
import java.time.Instant;
import java.util.Comparator;
import java.util.Map.Entry;

/**
 * Today's victims: the lowest priority first, then the most recently admitted (the least work
 * lost), then by name.
 */
public record LeastWorkLost() implements VictimChoice {
  private static final Comparator<Entry<String, Admitted>> ORDER =
      Comparator.comparingInt((Entry<String, Admitted> e) -> e.getValue().priority())
          .thenComparing(e -> e.getValue().at(), Comparator.<Instant>reverseOrder())
          .thenComparing(Entry::getKey);

  @Override
  public Comparator<Entry<String, Admitted>> order() {
    return ORDER;
  }
}
