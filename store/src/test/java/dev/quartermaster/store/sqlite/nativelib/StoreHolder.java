package dev.quartermaster.store.sqlite.nativelib;

import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;

/**
 * The child process of {@link OpeningAStoreLitterTest}: opens the store at {@code args[0]}, prints
 * {@code open}, and holds it until its stdin ends or it is killed.
 */
public final class StoreHolder {
  private StoreHolder() {}

  public static void main(String[] args) throws Exception {
    try (var store = SqliteStore.open(Path.of(args[0]))) {
      System.out.println("open");
      System.out.flush();
      System.in.read();
    }
  }
}
