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
  private volatile ApiClient writer;
  private volatile Optional<Term> term = Optional.empty();
  private final AtomicLong refused = new AtomicLong();

  /** Writes the store refused because the term they were fenced by had ended, this term. */
  private final AtomicLong fencedThisTerm = new AtomicLong();

  public FencedApiClient(ApiClient delegate, Leadership leadership) {
    this.delegate = delegate;
    this.leadership = leadership;
    this.writer = delegate;
  }

  /** Writes from now on carry {@code term}'s fencing token, where the client beneath can. */
  public void beginTerm(Term term) {
    this.term = Optional.of(term);
    fencedThisTerm.set(0);
    writer =
        delegate instanceof FencingClient f
            ? f.fencedBy(term.fenceKey(), term.fenceRevision())
            : delegate;
  }

  /** Whether writes are fenced in the store, not only by the leadership check. */
  public boolean fencesInStore() {
    return delegate instanceof FencingClient;
  }

  /** The term whose token the writes carry now; empty before the first. */
  public Optional<Term> term() {
    return term;
  }

  /**
   * Writes the store refused since {@link #beginTerm} because that term had ended: any at all means
   * these controllers cannot write until they start again under a newer term.
   */
  public long fencedThisTerm() {
    return fencedThisTerm.get();
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

  private <R> R fenced(java.util.function.Supplier<R> write) {
    try {
      return write.get();
    } catch (ApiException e) {
      if (FencingClient.termEnded(e)) {
        fencedThisTerm.incrementAndGet();
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
    return fenced(() -> writer.create(object));
  }

  @Override
  public <T extends ApiObject> T update(T object) {
    requireLeader("update " + object.ref());
    return fenced(() -> writer.update(object));
  }

  @Override
  public <T extends ApiObject> T updateStatus(T object) {
    requireLeader("status update " + object.ref());
    return fenced(() -> writer.updateStatus(object));
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
    return fenced(() -> writer.commit(writes));
  }

  @Override
  public <T extends ApiObject> DeleteResult<T> delete(Kind<T> kind, String name) {
    requireLeader("delete " + kind.singular() + "/" + name);
    return fenced(() -> writer.delete(kind, name));
  }

  @Override
  public <T extends ApiObject> WatchHandle watch(
      Kind<T> kind, long afterRevision, WatchScope scope, WatchHandler<T> handler) {
    return delegate.watch(kind, afterRevision, scope, handler);
  }
}
