package dev.quartermaster.store.sqlite;

import dev.quartermaster.store.StoreException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Refuses to create a new, empty store where the surroundings show one existed: a missing or
 * emptied database next to its marker (or, for data dirs older than the marker, next to state the
 * caller names, such as the admin token) means the data was lost, and starting empty would hide
 * that loss behind a cluster that looks healthy.
 */
final class ExistingStore {
  private ExistingStore() {}

  static void refuseNewIfExisted(Path db, OptionalLong marked, List<Path> evidence) {
    List<Path> found = new ArrayList<>();
    if (marked.isPresent()) {
      found.add(StoreMarker.of(db));
    }
    for (Path p : evidence) {
      if (Files.exists(p)) {
        found.add(p);
      }
    }
    if (found.isEmpty()) {
      return;
    }
    StringBuilder m =
        new StringBuilder("store " + db + " is missing or empty, but a store existed here: found ");
    m.append(String.join(", ", found.stream().map(Path::toString).toList()));
    marked.ifPresent(id -> m.append(" (store id ").append(StoreMarker.format(id)).append(')'));
    m.append(". Refusing to start an empty store in its place. Restore ")
        .append(db)
        .append(" from a backup; or, to start a new empty store deliberately, delete ")
        .append(String.join(" and ", found.stream().map(Path::toString).toList()))
        .append(" first");
    throw new StoreException(m.toString());
  }
}
