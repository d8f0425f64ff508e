package dev.quartermaster.store;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * What the contract tests need from {@link StoreContractTest}: the store under test and a way to
 * open it again on the same data, plus small helpers. Each contract interface extends this.
 */
public interface StoreFixture {
  /**
   * How long to wait for something that must happen. Generous on purpose: it only decides how long
   * a real hang takes to fail, never whether a correct run passes.
   */
  Duration AWAIT = Duration.ofSeconds(30);

  /** The open store under test. */
  Store store();

  /** Closes the store under test and opens it again on the same data; returns the new one. */
  Store reopenStore();

  /** Closes the store under test, e.g. so another process can open its data. */
  void closeStore();

  /** The directory holding the store's data. */
  Path storeDir();

  default TxnResult put(String key, String value) {
    return store().txn(Txn.when(List.of(), List.of(new Txn.Op.Put(key, bytes(value)))));
  }

  default TxnResult delete(String key) {
    return store().txn(Txn.when(List.of(), List.of(new Txn.Op.Delete(key))));
  }

  /** Put if {@code key} is still at {@code modRevision} (0: absent). */
  default TxnResult putIf(String key, long modRevision, String value) {
    return store()
        .txn(
            Txn.when(
                List.of(new Txn.Compare.ModRevision(key, modRevision)),
                List.of(new Txn.Op.Put(key, bytes(value)))));
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static String text(KeyValue kv) {
    return new String(kv.value(), StandardCharsets.UTF_8);
  }

  static List<String> keys(Range range) {
    return range.kvs().stream().map(KeyValue::key).toList();
  }
}
