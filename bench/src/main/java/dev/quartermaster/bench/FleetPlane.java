package dev.quartermaster.bench;

import dev.quartermaster.control.ControlPlane;
import dev.quartermaster.control.allocator.Packing;
import dev.quartermaster.core.files.FileTrees;
import dev.quartermaster.store.registry.ObjectRegistry;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A fresh store holding a fleet of ready nodes, and the control plane over it, leading with its
 * caches filled: a round that starts its clock on one measures the work it gives it, not start-up.
 * No agents: what is measured ends at placement (tasks stay Scheduled).
 */
record FleetPlane(Path dir, LocalServer cluster, ControlPlane controllers)
    implements AutoCloseable {

  /** In {@code dir}, which is removed on close: a bench makes many of these. */
  static FleetPlane start(Path dir, int nodes, int gpus, Packing packing) throws Exception {
    var cluster = LocalServer.start(dir);
    try {
      ControlPlaneBench.fleet(cluster, Report.QUIET, nodes, gpus);
      var controllers = ControlPlaneBench.startControllers(cluster, packing);
      int waited = 0;
      while (!controllers.isLeader() || !controllers.informers().hasSynced()) {
        if (++waited > 6_000) {
          controllers.close();
          throw new IllegalStateException("the control plane did not lead within 60 s");
        }
        Thread.sleep(10);
      }
      return new FleetPlane(dir, cluster, controllers);
    } catch (Exception | Error e) {
      cluster.close();
      throw e;
    }
  }

  ObjectRegistry api() {
    return cluster.registry();
  }

  /**
   * Closes once every controller's queue is empty (10 s at most): work still queued would otherwise
   * fail loudly ("not the leader") as the controllers stop.
   */
  @Override
  public void close() {
    for (int waited = 0; waited < 1_000 && !idle(); waited++) {
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    controllers.close(); // before the store it watches
    cluster.close();
    try {
      FileTrees.delete(dir);
    } catch (IOException e) {
      System.err.println("qm bench: could not remove " + dir + ": " + e.getMessage());
    }
  }

  private boolean idle() {
    return controllers.loops().stream()
        .map(l -> l.queue())
        .allMatch(q -> q.len() == 0 && q.processingCount() == 0);
  }
}
