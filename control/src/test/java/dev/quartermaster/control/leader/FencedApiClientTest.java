package dev.quartermaster.control.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.FencingClient;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The count {@code /readyz} reads: writes the store refused as fenced, counted against the term
 * they were sent under. The failover test's paused server resumed with a write of its old term in
 * flight, refused after its new term began; counted against the new term, it left the server
 * leading but never ready again (CI, stop 53).
 */
class FencedApiClientTest {
  private static final Term ONE = new Term(1, "/leases/controllers/term", 10);
  private static final Term TWO = new Term(2, "/leases/controllers/term", 20);

  /** A store whose every fenced delete is refused: first running {@code during}, if set. */
  private static FencingClient refusingStore(AtomicReference<Runnable> during) {
    ApiClient fenced =
        (ApiClient)
            Proxy.newProxyInstance(
                ApiClient.class.getClassLoader(),
                new Class<?>[] {ApiClient.class},
                (proxy, method, args) -> {
                  var hook = during.getAndSet(null);
                  if (hook != null) {
                    hook.run();
                  }
                  throw new ApiException(
                      Reason.Unavailable, FencingClient.TERM_ENDED + "the term ended");
                });
    return (FencingClient)
        Proxy.newProxyInstance(
            FencingClient.class.getClassLoader(),
            new Class<?>[] {FencingClient.class},
            (proxy, method, args) -> {
              if (method.getName().equals("fencedBy")) {
                return fenced;
              }
              throw new UnsupportedOperationException(method.getName());
            });
  }

  @Test
  void aWriteOfAnEndedTermRefusedAfterTheNextBeganDoesNotCountAgainstTheNext() {
    var during = new AtomicReference<Runnable>();
    var client = new FencedApiClient(refusingStore(during), Leadership.ALWAYS);
    client.beginTerm(ONE);
    // The write goes out under term 1; term 2 begins while it is in flight; then it is refused.
    during.set(() -> client.beginTerm(TWO));
    assertThatThrownBy(() -> client.delete(Kinds.NODE, "n1")).isInstanceOf(ApiException.class);

    assertThat(client.term()).contains(TWO);
    assertThat(client.fencedThisTerm()).isZero();
  }

  @Test
  void aWriteOfTheCurrentTermRefusedAsFencedCounts() {
    var client = new FencedApiClient(refusingStore(new AtomicReference<>()), Leadership.ALWAYS);
    client.beginTerm(TWO);
    assertThatThrownBy(() -> client.delete(Kinds.NODE, "n1")).isInstanceOf(ApiException.class);

    assertThat(client.fencedThisTerm()).isEqualTo(1);
  }
}
