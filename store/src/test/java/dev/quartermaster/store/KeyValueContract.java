package dev.quartermaster.store;

import static dev.quartermaster.store.StoreFixture.bytes;
import static dev.quartermaster.store.StoreFixture.keys;
import static dev.quartermaster.store.StoreFixture.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Revisions, key metadata, and reads: get and range, now and at an old revision. */
public interface KeyValueContract extends StoreFixture {

  @Test
  default void emptyStoreIsAtRevisionZero() {
    assertThat(store().currentRevision()).isZero();
    assertThat(store().compactedRevision()).isZero();
    assertThat(store().get("/x")).isEmpty();
    Range range = store().range("", 0);
    assertThat(range.kvs()).isEmpty();
    assertThat(range.revision()).isZero();
  }

  @Test
  default void everyWritingTransactionGetsTheNextRevision() {
    long last = store().currentRevision();
    for (int i = 0; i < 10; i++) {
      long rev = (i % 3 == 2 ? delete("/k/" + (i - 1)) : put("/k/" + i, "v" + i)).revision();
      assertThat(rev).isEqualTo(last + 1);
      assertThat(store().currentRevision()).isEqualTo(rev);
      last = rev;
    }
  }

  @Test
  default void putsTrackCreateRevisionModRevisionAndVersion() {
    TxnResult first = put("/a", "1");
    KeyValue a1 = first.written().getFirst();
    assertThat(a1).isEqualTo(new KeyValue("/a", bytes("1"), first.revision(), first.revision(), 1));
    assertThat(store().get("/a")).contains(a1);

    long r2 = put("/a", "2").revision();
    long r3 = put("/b", "x").revision();
    assertThat(store().get("/a")).contains(new KeyValue("/a", bytes("2"), first.revision(), r2, 2));
    assertThat(store().get("/b")).contains(new KeyValue("/b", bytes("x"), r3, r3, 1));
  }

  @Test
  default void deleteThenRecreateStartsANewIncarnation() {
    put("/a", "1");
    put("/a", "2");
    long deleted = delete("/a").revision();
    assertThat(store().get("/a")).isEmpty();
    assertThat(store().range("/a", 0).kvs()).isEmpty();

    long recreated = put("/a", "3").revision();
    assertThat(recreated).isEqualTo(deleted + 1);
    assertThat(store().get("/a")).contains(new KeyValue("/a", bytes("3"), recreated, recreated, 1));
  }

  @Test
  default void modRevisionIsTheLiveValuesRevisionWithoutTheValue() {
    assertThat(store().modRevision("/a")).isEmpty();
    long created = put("/a", "1").revision();
    assertThat(store().modRevision("/a")).hasValue(created);
    put("/b", "x");
    long changed = put("/a", "2").revision();
    assertThat(store().modRevision("/a")).hasValue(changed);
    assertThat(store().modRevision("/")).as("a prefix is no key").isEmpty();
    delete("/a");
    assertThat(store().modRevision("/a")).as("a deleted key has no revision").isEmpty();
    long recreated = put("/a", "3").revision();
    assertThat(store().modRevision("/a")).hasValue(recreated);
  }

  @Test
  default void deletingAnAbsentKeyChangesNothing() {
    long before = put("/a", "1").revision();
    TxnResult result = delete("/missing");
    assertThat(result.succeeded()).isTrue();
    assertThat(result.revision()).isEqualTo(before);
    assertThat(result.written()).isEmpty();
    assertThat(store().currentRevision()).isEqualTo(before);
  }

  @Test
  default void rangeReturnsTheKeysUnderAPrefixInKeyOrder() {
    for (String key : List.of("/a/2", "/ab/1", "/a/1", "/a", "/b/1", "/a/10", "/a/", "/a0")) {
      put(key, key);
    }
    assertThat(keys(store().range("/a/", 0))).containsExactly("/a/", "/a/1", "/a/10", "/a/2");
    assertThat(keys(store().range("/ab/", 0))).containsExactly("/ab/1");
    assertThat(keys(store().range("/c/", 0))).isEmpty();
    assertThat(keys(store().range("", 0)))
        .containsExactly("/a", "/a/", "/a/1", "/a/10", "/a/2", "/a0", "/ab/1", "/b/1");
    assertThat(store().range("/a/", 0).kvs())
        .allSatisfy(kv -> assertThat(text(kv)).isEqualTo(kv.key()));
  }

  @Test
  default void aPagedRangeReadsOnePageAtATimeAtOneRevision() {
    for (int i = 0; i < 7; i++) {
      put("/p/k" + i, "v" + i);
    }
    put("/q/other", "x");
    delete("/p/k2"); // a tombstone inside a page is skipped, and the page still fills
    long at = store().currentRevision();
    assertThat(keys(store().range("/p/", at, "", 3))).containsExactly("/p/k0", "/p/k1", "/p/k3");
    assertThat(keys(store().range("/p/", at, "/p/k3", 3)))
        .containsExactly("/p/k4", "/p/k5", "/p/k6");
    assertThat(store().range("/p/", at, "/p/k6", 3).kvs()).isEmpty();

    // Later writes do not move a page read at the first page's revision.
    put("/p/k35", "new");
    delete("/p/k4");
    assertThat(keys(store().range("/p/", at, "/p/k3", 2))).containsExactly("/p/k4", "/p/k5");
    assertThat(keys(store().range("/p/", 0, "/p/k3", 2))).containsExactly("/p/k35", "/p/k5");
    assertThatThrownBy(() -> store().range("/p/", 0, "", 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  default void rangeAtAnOldRevisionSeesTheOldState() {
    put("/r/a", "a1");
    long old = put("/r/b", "b1").revision();
    Range before = store().range("/r/", 0);
    put("/r/a", "a2");
    delete("/r/b");
    put("/r/c", "c1");

    assertThat(store().range("/r/", old).kvs()).isEqualTo(before.kvs());
    assertThat(keys(store().range("/r/", 0))).containsExactly("/r/a", "/r/c");
    assertThat(text(store().range("/r/", 0).kvs().getFirst())).isEqualTo("a2");
  }

  @Test
  default void rangeReportsTheRevisionItRead() {
    put("/a", "1");
    long rev = put("/b", "1").revision();
    assertThat(store().range("/", 0).revision()).isEqualTo(rev);
    // At an old revision the store still reports where it is now, as etcd's header does.
    assertThat(store().range("/", rev - 1).revision()).isGreaterThanOrEqualTo(rev - 1);
  }

  @Test
  default void rangeBeyondTheCurrentRevisionFails() {
    long rev = put("/a", "1").revision();
    assertThatThrownBy(() -> store().range("/", rev + 1))
        .isInstanceOf(FutureRevisionException.class);
  }

  @Test
  default void keysAndValuesRoundTripExactly() {
    byte[] binary = {0, 1, (byte) 0xFF, (byte) 0x80, 0, 127};
    store()
        .txn(
            Txn.when(
                List.of(),
                List.of(
                    new Txn.Op.Put("/bin", binary),
                    new Txn.Op.Put("/empty", new byte[0]),
                    new Txn.Op.Put("/ü/ключ/🙂", bytes("unicode")))));
    assertThat(store().get("/bin").orElseThrow().value()).isEqualTo(binary);
    assertThat(store().get("/empty").orElseThrow().value()).isEmpty();
    assertThat(text(store().get("/ü/ключ/🙂").orElseThrow())).isEqualTo("unicode");
    assertThat(keys(store().range("/ü/", 0))).containsExactly("/ü/ключ/🙂");
  }
}
