package dev.quartermaster.api.codec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceClassSpec;
import dev.quartermaster.api.device.DeviceClassStatus;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Encodes and decodes on many short-lived virtual threads, as reconciles and watch deliveries do,
 * share one set of Jackson buffers: each call hands its set back, the next takes it. With Jackson's
 * default (a set per thread) the shared pool would stay empty and every call would allocate a set.
 */
class PooledJsonTest {
  @Test
  void callsOnSuccessiveVirtualThreadsReuseOneBufferSet() throws Exception {
    var object =
        new DeviceClass(
            ObjectMeta.named("gpu"),
            new DeviceClassSpec("gpu", List.of()),
            DeviceClassStatus.EMPTY);
    for (int i = 0; i < 50; i++) {
      var thread =
          Thread.ofVirtual()
              .start(
                  () -> {
                    var bytes = ObjectCodec.toJson(object);
                    assertThat(ObjectCodec.fromJson(bytes, Kinds.DEVICE_CLASS)).isEqualTo(object);
                  });
      thread.join();
    }

    // One set went round 50 threads (a few more only if another test's calls overlapped).
    assertThat(PooledJson.pool().pooledCount()).isBetween(1, 4);
  }
}
