package dev.quartermaster.api.codec;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.util.BufferRecycler;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.core.util.RecyclerPool;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Jackson set up for virtual threads: its working buffers come from one pool shared by all threads.
 *
 * <p>Jackson's default pool keeps a thread's buffers in a {@code ThreadLocal}. Our reconciles,
 * watch deliveries and agent syncs each run on a fresh virtual thread, so every encode and decode
 * found an empty pool and allocated its buffers anew (8,000-byte and 4,000-char blocks, then thrown
 * away): in the e2e bench most of the process's garbage. A shared pool hands the same buffers from
 * call to call; a buffer is back in it when its parser or generator is closed, which Jackson's
 * one-call methods ({@code readValue}, {@code writeValueAsBytes}, …) always do.
 */
public final class PooledJson {
  /**
   * At most as many buffer sets as calls ever ran at once; each is returned when its call closes.
   */
  private static final RecyclerPool<BufferRecycler> POOL =
      JsonRecyclerPools.sharedConcurrentDequePool();

  private PooledJson() {}

  /** The shared pool, for a factory built elsewhere (the YAML one). */
  public static RecyclerPool<BufferRecycler> pool() {
    return POOL;
  }

  /** A JSON factory on the shared pool. */
  public static JsonFactory factory() {
    return JsonFactory.builder().recyclerPool(POOL).build();
  }

  /** A plain mapper (Jackson's defaults) on the shared pool. */
  public static ObjectMapper mapper() {
    return new ObjectMapper(factory());
  }
}
