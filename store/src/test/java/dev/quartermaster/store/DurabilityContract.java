package dev.quartermaster.store;

import static dev.quartermaster.store.StoreFixture.text;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What was acknowledged survives closing, reopening, and a kill -9 of the writing process. */
// Watches and stores are opened in try-with-resources only to be closed, hence "try".
@SuppressWarnings("try")
public interface DurabilityContract extends StoreFixture {

  @Test
  default void stateRevisionAndCompactionSurviveReopen() {
    put("/a", "1");
    put("/b", "1");
    long compactAt = put("/a", "2").revision();
    delete("/b");
    store().compact(compactAt);
    put("/c", "1");
    long last = delete("/c").revision();
    Range before = store().range("", 0);
    Range atCompaction = store().range("", compactAt);

    reopenStore();

    assertThat(store().currentRevision()).isEqualTo(last);
    assertThat(store().compactedRevision()).isEqualTo(compactAt);
    assertThat(store().range("", 0).kvs()).isEqualTo(before.kvs());
    assertThat(store().range("", compactAt).kvs()).isEqualTo(atCompaction.kvs());
    assertThat(put("/d", "1").revision()).isEqualTo(last + 1);
    Recorder recorder = new Recorder();
    try (Watch ignored = store().watch("", compactAt, recorder)) {
      assertThat(Recorder.revisions(recorder.eventsThrough(last + 1)))
          .containsExactly(compactAt + 1, compactAt + 2, last, last + 1);
    }
  }

  /** One acknowledged transaction, as the child printed it. */
  record Ack(int writer, long index, long revision) {}

  @Test
  default void acknowledgedWritesSurviveKill9() throws Exception {
    closeStore(); // the child process opens the store
    int[] killAfter = {1, 7, 25, 60, 150};
    for (int round = 0; round < killAfter.length; round++) {
      String prefix = "/crash/" + round + "/";
      List<Ack> acks = runAndKill(prefix, killAfter[round]);
      assertThat(acks).hasSizeGreaterThanOrEqualTo(killAfter[round]);

      Store store = reopenStore();
      Map<Integer, Long> lastIndex = new HashMap<>();
      for (Ack ack : acks) {
        KeyValue kv =
            store
                .get(prefix + ack.writer() + "/" + ack.index())
                .orElseThrow(
                    () -> new AssertionError("acknowledged write lost after kill -9: " + ack));
        assertThat(kv.modRevision()).as("revision of %s", ack).isEqualTo(ack.revision());
        assertThat(text(kv)).isEqualTo("v" + ack.index());
        lastIndex.merge(ack.writer(), ack.index(), Math::max);
      }
      assertThat(acks.stream().map(Ack::revision)).doesNotHaveDuplicates();
      long maxAcked = acks.stream().mapToLong(Ack::revision).max().orElseThrow();
      assertThat(store.currentRevision()).isGreaterThanOrEqualTo(maxAcked);
      // Both puts of a transaction land together: the "last" marker never points past a lost key.
      lastIndex.forEach(
          (writer, acked) -> {
            long last = Long.parseLong(text(store.get(prefix + "last/" + writer).orElseThrow()));
            assertThat(last).isGreaterThanOrEqualTo(acked);
            assertThat(store.get(prefix + writer + "/" + last)).isPresent();
          });
      assertThat(put("/after-crash/" + round, "x").revision()).isEqualTo(store.currentRevision());
      closeStore();
    }
    reopenStore();
  }

  /**
   * Starts the writer process, kills it with SIGKILL after {@code count} acks, returns all acks.
   */
  private List<Ack> runAndKill(String prefix, int count) throws Exception {
    Path stderr = storeDir().resolve("crash-writer.err");
    String java =
        ProcessHandle.current()
            .info()
            .command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    Process process =
        new ProcessBuilder(
                java,
                "--enable-native-access=ALL-UNNAMED",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                CrashWriter.class.getName(),
                getClass().getName(),
                storeDir().toString(),
                prefix)
            .redirectError(stderr.toFile())
            .start();
    BlockingQueue<Optional<String>> lines = new LinkedBlockingQueue<>();
    Thread.ofVirtual().start(() -> readLines(process.getInputStream(), lines));
    List<Ack> acks = new ArrayList<>();
    try {
      while (acks.size() < count) {
        Optional<String> line = lines.poll(AWAIT.toMillis(), TimeUnit.MILLISECONDS);
        if (line == null || line.isEmpty()) {
          throw new AssertionError(
              "writer process gave "
                  + acks.size()
                  + " acks, then "
                  + (line == null ? "nothing for " + AWAIT : "exited")
                  + "; its stderr:\n"
                  + Files.readString(stderr));
        }
        parse(line.get()).ifPresent(acks::add);
      }
    } finally {
      process.destroyForcibly(); // SIGKILL on Linux: no shutdown hooks, no close
      assertThat(process.waitFor(AWAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    }
    // Acks printed before the kill may still be in the pipe.
    for (Optional<String> line;
        (line = lines.poll(AWAIT.toMillis(), TimeUnit.MILLISECONDS)) != null
            && line.isPresent(); ) {
      parse(line.get()).ifPresent(acks::add);
    }
    return acks;
  }

  private static Optional<Ack> parse(String line) {
    String[] f = line.split(" ");
    if (f.length != 4 || !f[0].equals("ack")) {
      return Optional.empty(); // e.g. a log line
    }
    return Optional.of(new Ack(Integer.parseInt(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3])));
  }

  /**
   * Queues each complete line, then an empty Optional at end of stream; a cut-off line is dropped.
   */
  private static void readLines(InputStream in, BlockingQueue<Optional<String>> lines) {
    try (Reader reader = new InputStreamReader(in, StandardCharsets.UTF_8)) {
      StringBuilder line = new StringBuilder();
      for (int c; (c = reader.read()) != -1; ) {
        if (c == '\n') {
          lines.add(Optional.of(line.toString()));
          line.setLength(0);
        } else {
          line.append((char) c);
        }
      }
    } catch (IOException e) {
      // The pipe broke with the process; what was read is all there is.
    } finally {
      lines.add(Optional.empty());
    }
  }
}
