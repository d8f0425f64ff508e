package dev.quartermaster.store;

import java.util.List;

/** The result of a range read: the matching keys and the store revision the read saw. */
public record Range(List<KeyValue> kvs, long revision) {
  public Range {
    kvs = List.copyOf(kvs);
  }
}
