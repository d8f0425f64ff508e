package dev.quartermaster.api.client;

/** A running watch; closing it stops delivery. */
public interface WatchHandle extends AutoCloseable {
  @Override
  void close();
}
