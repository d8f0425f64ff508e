package dev.quartermaster.store;

/** A running watch. Closing it stops delivery; no event is delivered after close returns. */
public interface Watch extends AutoCloseable {
  @Override
  void close();
}
