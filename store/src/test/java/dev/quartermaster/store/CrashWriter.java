package dev.quartermaster.store;

import java.io.PrintStream;
import java.lang.reflect.Constructor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The child process of the durability test: opens the store through the contract test's own factory
 * and writes until it is killed, printing {@code ack <writer> <i> <revision>} for each transaction
 * only after the store acknowledged it. Transaction i of writer w puts {@code <prefix><w>/<i>} and
 * sets {@code <prefix>last/<w>} to i, atomically.
 *
 * <p>Arguments: the concrete {@link StoreContractTest} class, the store directory, the key prefix.
 */
public final class CrashWriter {
  static final int WRITERS = 4;

  /** Transactions refused in a row before a writer gives up. */
  private static final int MAX_FAILURES_IN_A_ROW = 20;

  private CrashWriter() {}

  public static void main(String[] args) throws Exception {
    Constructor<?> constructor = Class.forName(args[0]).getDeclaredConstructor();
    constructor.setAccessible(true);
    StoreContractTest factory = (StoreContractTest) constructor.newInstance();
    Store store = factory.reopen(Path.of(args[1]));
    String prefix = args[2];
    PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int w = 0; w < WRITERS; w++) {
        int writer = w;
        pool.submit(
            () -> {
              int failures = 0;
              for (long i = 0; ; i++) {
                TxnResult result;
                try {
                  result =
                      store.txn(
                          Txn.when(
                              List.of(),
                              List.of(
                                  new Txn.Op.Put(
                                      prefix + writer + "/" + i, StoreFixture.bytes("v" + i)),
                                  new Txn.Op.Put(
                                      prefix + "last/" + writer,
                                      StoreFixture.bytes(Long.toString(i))))));
                  failures = 0;
                } catch (RuntimeException e) {
                  // Not acknowledged, so nothing is promised: say why (a store just reopened, e.g.
                  // an etcd
                  // cluster still electing, can refuse for a while) and write the same i again. A
                  // writer
                  // that only fails ends, and the test names the cause from this output.
                  System.err.println(
                      "writer "
                          + writer
                          + ": transaction "
                          + i
                          + " failed ("
                          + (failures + 1)
                          + " in a row): "
                          + e);
                  if (++failures >= MAX_FAILURES_IN_A_ROW) {
                    throw e;
                  }
                  i--;
                  continue;
                }
                synchronized (out) {
                  // One write per line, so a kill never leaves half a line that looks whole.
                  out.print("ack " + writer + " " + i + " " + result.revision() + "\n");
                  out.flush();
                }
              }
            });
      }
    }
  }
}
