package dev.quartermaster.kubelet.grpc;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Answers a unary call: the response, or INTERNAL naming what broke (never a hung call). */
final class Calls {
  private static final Logger LOG = LoggerFactory.getLogger(Calls.class);

  private Calls() {}

  static <T> void answer(StreamObserver<T> observer, Supplier<T> work) {
    T value;
    try {
      value = work.get();
    } catch (RuntimeException e) {
      LOG.error("kubelet call failed", e);
      observer.onError(
          Status.INTERNAL.withDescription(String.valueOf(e.getMessage())).asRuntimeException());
      return;
    }
    observer.onNext(value);
    observer.onCompleted();
  }
}
