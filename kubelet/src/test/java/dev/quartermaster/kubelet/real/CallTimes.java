package dev.quartermaster.kubelet.real;

import java.time.Instant;

/**
 * When a call passed the recording proxy: its request's arrival and its answer's sending, each as a
 * wall-clock instant (for the report) and as a number from one counter shared by every call (for
 * the judgement: two calls arriving "at the same instant" still have an order).
 */
record CallTimes(long arrivalSeq, Instant arrived, long answerSeq, Instant answered) {
  CallTimes {
    if (answerSeq <= arrivalSeq) {
      throw new IllegalArgumentException(
          "an answer (#" + answerSeq + ") comes after its request (#" + arrivalSeq + ")");
    }
  }

  @Override
  public String toString() {
    return "arrived #" + arrivalSeq + " " + arrived + ", answered #" + answerSeq + " " + answered;
  }
}
