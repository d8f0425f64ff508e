package dev.quartermaster.agent.plugins;

import dev.quartermaster.core.env.Env;
import dev.quartermaster.csi.plugin.CsiCall;
import dev.quartermaster.csi.plugin.CsiCode;
import dev.quartermaster.csi.plugin.CsiException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * One CSI call made safe to wait on: it fails (never hangs, never throws) with a {@link
 * CsiException} naming the call.
 */
public final class CsiCalls {
  private CsiCalls() {}

  /**
   * Makes {@code call}; the result fails with DEADLINE_EXCEEDED if no answer came within {@code
   * timeout} (a hung plugin must not hang the agent), with UNKNOWN if the plugin threw or answered
   * nothing, and with the plugin's own code otherwise.
   */
  public static <T> CompletableFuture<T> within(
      Env env, CsiCall call, Duration timeout, Supplier<? extends CompletionStage<T>> make) {
    var result = new CompletableFuture<T>();
    var timer =
        env.schedule(
            timeout,
            () ->
                result.completeExceptionally(
                    new CsiException(
                        call, CsiCode.DEADLINE_EXCEEDED, "no answer within " + timeout)));
    named(call, make)
        .whenComplete(
            (v, e) -> {
              timer.cancel();
              if (e != null) {
                result.completeExceptionally(e);
              } else {
                result.complete(v);
              }
            });
    return result;
  }

  /** Like {@link #within} without a time limit (the client's own deadline bounds it). */
  public static <T> CompletableFuture<T> named(
      CsiCall call, Supplier<? extends CompletionStage<T>> make) {
    var result = new CompletableFuture<T>();
    CompletionStage<T> stage;
    try {
      stage = make.get();
    } catch (RuntimeException e) {
      result.completeExceptionally(CsiException.of(call, e));
      return result;
    }
    if (stage == null) {
      result.completeExceptionally(
          new CsiException(call, CsiCode.UNKNOWN, "the client returned no answer"));
      return result;
    }
    stage.whenComplete(
        (v, e) -> {
          if (e != null) {
            result.completeExceptionally(CsiException.of(call, e));
          } else {
            result.complete(v);
          }
        });
    return result;
  }
}
