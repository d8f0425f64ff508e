package dev.quartermaster.store.registry;

import dev.quartermaster.api.domain.ComputeDomain;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.volume.Volume;
import java.util.ArrayList;
import java.util.List;

/**
 * The finalizers the server adds to every new object of some kinds, so a delete waits for the
 * controller that releases what the object holds: {@link Volume#RELEASE_FINALIZER} (the volume in
 * its plugin, its claims) and {@link ComputeDomain#IN_USE_FINALIZER} (the claims that name it).
 */
final class ServerFinalizers {
  private ServerFinalizers() {}

  /** The finalizers a new object is stored with: its own, plus the server's for its kind. */
  static List<String> atCreate(ApiObject o) {
    var server =
        switch (o) {
          case Volume _ -> Volume.RELEASE_FINALIZER;
          case ComputeDomain _ -> ComputeDomain.IN_USE_FINALIZER;
          default -> "";
        };
    var f = o.metadata().finalizers();
    if (server.isEmpty() || f.contains(server)) {
      return f;
    }
    var with = new ArrayList<>(f);
    with.add(server);
    return with;
  }
}
