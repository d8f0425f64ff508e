package dev.quartermaster.agent.logs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.NodeAgentConfig;
import dev.quartermaster.agent.tasks.TaskLogs;
import dev.quartermaster.api.logs.LogOptions;
import dev.quartermaster.core.env.DeterministicEnv;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A task's output kept bounded and read back: {@code sinceSeconds} from the agent's own samples,
 * rotation that keeps two parts and says what it dropped, and — against a real process — why the
 * task's file must be opened for append: the naive redirect (truncating, at its own offset) turns a
 * rotation into a hole of NUL bytes over the agent's notice.
 */
class TaskLogStoreTest {
  @TempDir Path dir;

  private final DeterministicEnv env = new DeterministicEnv(1);

  private Path log(String task) {
    return NodeAgentConfig.taskLog(dir, task);
  }

  private TaskLogStore store(long max) throws IOException {
    Files.createDirectories(log("t").getParent());
    return new TaskLogStore(this::log, max, env);
  }

  private static String read(TaskLogStore store, String task, LogOptions options) throws Exception {
    var out = new ByteArrayOutputStream();
    assertThat(store.stream(task, options, () -> false, out, () -> {})).isTrue();
    return out.toString(StandardCharsets.UTF_8);
  }

  private static LogOptions since(long seconds) {
    return new LogOptions(
        false, false, OptionalLong.empty(), OptionalLong.of(seconds), OptionalLong.empty());
  }

  private void append(String task, String text) throws IOException {
    Files.writeString(log(task), text, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }

  @Test
  void sinceStartsWhereThatSecondsOutputBeganToTheSecond() throws Exception {
    var store = store(TaskLogStore.DEFAULT_MAX_BYTES);
    append("t", "a\n");
    store.tick(List.of("t"));
    env.advance(Duration.ofSeconds(10));
    append("t", "b\n");
    store.tick(List.of("t"));
    env.advance(Duration.ofSeconds(10));
    append("t", "c\n");
    store.tick(List.of("t"));
    env.advance(Duration.ofSeconds(5));

    assertThat(read(store, "t", since(10))).isEqualTo("c\n");
    assertThat(read(store, "t", since(20))).isEqualTo("b\nc\n");
    assertThat(read(store, "t", since(3600))).isEqualTo("a\nb\nc\n");
    var tail =
        new LogOptions(false, false, OptionalLong.of(1), OptionalLong.of(20), OptionalLong.empty());
    assertThat(read(store, "t", tail)).isEqualTo("c\n");
  }

  @Test
  void rotationKeepsTwoPartsAndSaysWhatItDropped() throws Exception {
    var store = store(1024);
    var first = "x".repeat(1500) + "\n";
    append("t", first);
    store.tick(List.of("t"));
    assertThat(Files.readString(TaskLogs.rotated(log("t")))).isEqualTo(first);
    assertThat(Files.readString(log("t")))
        .contains("the 1501 before this line are kept aside, nothing dropped yet");

    var second = "y".repeat(1100) + "\n";
    append("t", second);
    store.tick(List.of("t"));
    assertThat(Files.readString(TaskLogs.rotated(log("t")))).endsWith(second);
    assertThat(Files.readString(log("t"))).contains("and 1501 older bytes were dropped");
    var all = read(store, "t", LogOptions.ALL);
    assertThat(all).doesNotContain("x").contains(second);
    assertThat(all.length())
        .isEqualTo(
            Files.readString(TaskLogs.rotated(log("t"))).length()
                + Files.readString(log("t")).length());
  }

  @Test
  void aNewAttemptStartsWithoutTheEarlierAttemptsRotatedPart() throws Exception {
    var store = store(1024);
    append("t", "x".repeat(2000) + "\n");
    store.tick(List.of("t"));
    assertThat(Files.exists(TaskLogs.rotated(log("t")))).isTrue();
    // What the runtime does before the next attempt starts:
    var keep = TaskLogs.class.getDeclaredMethod("keepPrevious", Path.class);
    keep.setAccessible(true);
    keep.invoke(null, log("t"));
    append("t", "second attempt\n");
    assertThat(read(store, "t", LogOptions.ALL)).isEqualTo("second attempt\n");
    assertThat(
            read(
                store,
                "t",
                new LogOptions(
                    false, true, OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty())))
        .contains("kept aside");
  }

  /** Writes 1101 bytes, says "ready" on stderr, waits for a line on stdin, writes "two". */
  private static Process writer(Redirect output) throws IOException {
    return new ProcessBuilder(
            "sh",
            "-c",
            "head -c 1100 /dev/zero | tr '\\0' x; echo; echo ready >&2; read go; echo two")
        .redirectOutput(output)
        .redirectError(Redirect.PIPE)
        .start();
  }

  private String rotateUnder(Process p, TaskLogStore store) throws Exception {
    try (var ready =
        new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
      assertThat(ready.readLine()).isEqualTo("ready");
      store.tick(List.of("t"));
      p.getOutputStream().write("go\n".getBytes(StandardCharsets.UTF_8));
      p.getOutputStream().close();
      assertThat(p.waitFor()).isZero();
    }
    return Files.readString(log("t"), StandardCharsets.ISO_8859_1);
  }

  @Test
  void aTaskWritingForAppendLosesNothingAfterARotation() throws Exception {
    var store = store(1024);
    var current = rotateUnder(writer(Redirect.appendTo(log("t").toFile())), store);
    assertThat(current).startsWith("[quartermaster:").endsWith("]\ntwo\n").doesNotContain("\0");
  }

  @Test
  void theNaiveRedirectLeavesAHoleOverTheNotice() throws Exception {
    var store = store(1024);
    var current = rotateUnder(writer(Redirect.to(log("t").toFile())), store);
    // The task writes at its own offset (1101), past the truncated end: NULs, then "two".
    assertThat(current).contains("\0").endsWith("two\n");
    assertThat(current.length()).isEqualTo(1101 + "two\n".length());
  }
}
