package dev.quartermaster.control.leader;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.DeleteResult;
import dev.quartermaster.api.client.FencingClient;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.client.ObjectList;
import dev.quartermaster.api.client.WatchHandle;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.client.WatchScope;
import dev.quartermaster.api.client.Write;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@link ApiClient} controllers write through: reads pass, writes pass only while {@link
 * Leadership#isLeader} holds at the moment of the call, so a leader that lost (or cannot renew) its
 * lease stops writing at once. A write already past this check still carries its revision
 * precondition, so it fails if a newer leader changed the object; and where the client beneath can
 * fence ({@link FencingClient}), each term's writes go through a client fenced by that term's token
 * ({@link #beginTerm}), so no write of an ended term lands at all.
 */
public final class FencedApiClient implements ApiClient {
  private final ApiClient delegate;
  private final Leadership leadership;
  private final AtomicLong refused = new AtomicLong();

  /**
   * The term writes go out under, the client that carries its token, and how many of that term's
   * writes the store refused as fenced. One value, swapped whole: a write refused after a newer
   * term began counts against the term it was sent under, never against the newer one (a paused
   * process resumes with writes of its old term in flight; counting those against the new term left
   * {@code /readyz} false for the whole of it).
   */
  private record TermWriter(Optional<Term> term, ApiClient writer, AtomicLong fenced) {}

  private volatile TermWriter current;

  public FencedApiClient(ApiClient delegate, Leadership leadership) {
    this.delegate = delegate;
    this.leadership = leadership;
    this.current = new TermWriter(Optional.empty(), delegate, new AtomicLong());
  }

  /** Writes from now on carry {@code term}'s fencing token, where the client beneath can. */
  public void beginTerm(Term term) {
    current =
        new TermWriter(
            Optional.of(term),
            delegate instanceof FencingClient f
                ? f.fencedBy(term.fenceKey(), term.fenceRevision())
                : delegate,
            new AtomicLong());
  }

  /** Whether writes are fenced in the store, not only by the leadership check. */
  public boolean fencesInStore() {
    return delegate instanceof FencingClient;
  }

  /** The term whose token the writes carry now; empty before the first. */
  public Optional<Term> term() {
    return current.term();
  }

  /**
   * Writes the store refused since {@link #beginTerm} because that term had ended: any at all means
   * these controllers cannot write until they start again under a newer term.
   */
  public long fencedThisTerm() {
    return current.fenced().get();
  }

  /** Writes refused because this process was not the leader. */
  public long refused() {
    return refused.get();
  }

  private void requireLeader(String what) {
    if (!leadership.isLeader()) {
      refused.incrementAndGet();
      throw new ApiException(Reason.Unavailable, "not the leader: " + what + " refused");
    }
  }

  private <R> R fenced(java.util.function.Function<ApiClient, R> write) {
    var under = current;
    try {
      return write.apply(under.writer());
    } catch (ApiException e) {
      if (FencingClient.termEnded(e)) {
        under.fenced().incrementAndGet();
      }
      throw e;
    }
  }

  @Override
  public <T extends ApiObject> Optional<T> get(Kind<T> kind, String name) {
    return delegate.get(kind, name);
  }

  @Override
  public <T extends ApiObject> ObjectList<T> list(Kind<T> kind, LabelSelector selector) {
    return delegate.list(kind, selector);
  }

  @Override
  public <T extends ApiObject> T create(T object) {
    requireLeader("create " + object.ref());
    return fenced(w -> w.create(object));
  }

  @Override
  public <T extends ApiObject> T update(T object) {
    requireLeader("update " + object.ref());
    return fenced(w -> w.update(object));
  }

  @Override
  public <T extends ApiObject> T updateStatus(T object) {
    requireLeader("status update " + object.ref());
    return fenced(w -> w.updateStatus(object));
  }

  @Override
  public int writesPerCommit() {
    return delegate.writesPerCommit();
  }

  @Override
  public List<ApiObject> commit(List<Write> writes) {
    requireLeader(
        "commit of "
            + writes.size()
            + " write(s), the first to "
            + writes.stream().findFirst().map(w -> w.object().ref()).orElse("nothing"));
    return fenced(w -> w.commit(writes));
  }

  @Override
  public <T extends ApiObject> DeleteResult<T> delete(Kind<T> kind, String name) {
    requireLeader("delete " + kind.singular() + "/" + name);
    return fenced(w -> w.delete(kind, name));
  }

  @Override
  public <T extends ApiObject> WatchHandle watch(
      Kind<T> kind, long afterRevision, WatchScope scope, WatchHandler<T> handler) {
    return delegate.watch(kind, afterRevision, scope, handler);
  }
}
