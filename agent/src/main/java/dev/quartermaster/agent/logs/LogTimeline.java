package dev.quartermaster.agent.logs;

import java.util.ArrayList;
import java.util.List;

/**
 * When a task's output reached which length, to the second: samples of (second, logical length)
 * taken while the agent watches the task run, so {@code sinceSeconds} can start where output of
 * that second began. Bounded: past {@link #MAX_SAMPLES} every other sample is dropped, so old
 * output is found less precisely, never wrongly (a sample only ever says "by then, this much").
 */
final class LogTimeline {
  static final int MAX_SAMPLES = 4096;

  private record Sample(long second, long length) {}

  private final List<Sample> samples = new ArrayList<>();

  /** At {@code second} the output was {@code length} bytes long. */
  synchronized void sample(long second, long length) {
    if (!samples.isEmpty()) {
      var last = samples.getLast();
      if (last.length() == length) {
        return; // nothing written since: the earlier sample says as much
      }
      if (last.second() == second) {
        return; // one per second: the first says where that second's output began
      }
    }
    samples.add(new Sample(second, length));
    if (samples.size() > MAX_SAMPLES) {
      for (int i = samples.size() - 2; i > 0; i -= 2) {
        samples.remove(i);
      }
    }
  }

  /**
   * Where output written at or after {@code second} starts, at the latest: the length at the last
   * sample taken before that second (all of it was written by then). Zero when no sample is older.
   */
  synchronized long startOf(long second) {
    long start = 0;
    for (var s : samples) {
      if (s.second() >= second) {
        break;
      }
      start = s.length();
    }
    return start;
  }

  /** The first {@code dropped} bytes are gone (rotated away): lengths move down by as much. */
  synchronized void drop(long dropped) {
    var kept = new ArrayList<Sample>();
    for (var s : samples) {
      if (s.length() >= dropped) {
        kept.add(new Sample(s.second(), s.length() - dropped));
      }
    }
    samples.clear();
    samples.addAll(kept);
  }

  synchronized void clear() {
    samples.clear();
  }
}
