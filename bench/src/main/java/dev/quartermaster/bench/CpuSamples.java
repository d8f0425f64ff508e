package dev.quartermaster.bench;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingStream;

/**
 * Which share of this process's CPU went to named parts of the code, by sampling (JFR's execution
 * samples, every 10 ms per running thread): a sample is a part's when one of its frames, {@code
 * Class.method}, is on the stack. The controllers run on virtual threads, whose CPU no thread clock
 * measures (a virtual thread moves between carriers while it waits for the store), so a part's CPU
 * is its share of the samples times the process's CPU. Samples are of Java code only: the store's
 * native SQLite time and the JIT's and the collector's threads are in the process's CPU and in no
 * part, so a part's figure is its share of what ran Java, an upper bound of its own cost.
 */
final class CpuSamples implements AutoCloseable {
  private static final String EXECUTION = "jdk.ExecutionSample";

  private final Map<String, String> frames;
  private final Map<String, LongAdder> hits;
  private final LongAdder total = new LongAdder();
  private final RecordingStream stream = new RecordingStream();

  /** {@code frames}: part → the frame ({@code fully.qualified.Class.method}) that marks it. */
  private CpuSamples(Map<String, String> frames) {
    this.frames = Map.copyOf(frames);
    this.hits = frames.keySet().stream().collect(Collectors.toMap(k -> k, k -> new LongAdder()));
  }

  static CpuSamples start(Map<String, String> frames) {
    var samples = new CpuSamples(frames);
    samples.stream.enable(EXECUTION).withPeriod(Duration.ofMillis(10)).withStackTrace();
    samples.stream.onEvent(EXECUTION, samples::sampled);
    samples.stream.startAsync();
    return samples;
  }

  private void sampled(RecordedEvent event) {
    total.increment();
    var stack = event.getStackTrace();
    if (stack == null) {
      return;
    }
    List<String> seen =
        stack.getFrames().stream()
            .map(f -> f.getMethod().getType().getName() + "." + f.getMethod().getName())
            .toList();
    frames.forEach(
        (part, frame) -> {
          if (seen.contains(frame)) {
            hits.get(part).increment();
          }
        });
  }

  /** The share (0 to 1) of the samples so far that were {@code part}'s. */
  double share(String part) {
    long all = total.sum();
    return all == 0 ? 0 : hits.get(part).sum() / (double) all;
  }

  long samples() {
    return total.sum();
  }

  @Override
  public void close() {
    stream.close();
  }
}
