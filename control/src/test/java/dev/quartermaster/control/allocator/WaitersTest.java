package dev.quartermaster.control.allocator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.control.allocator.WakeEvent.Cluster;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The waiting room: a key parks with what could make it fit, the matching events and only those
 * move it back to the queue, once; and an event that lands between a failed fit and the park is not
 * lost — shown against a naive room that parks without asking what happened since the decision
 * began.
 */
class WaitersTest {
  private static final AllocatorKey A = AllocatorKey.task("a");
  private static final AllocatorKey B = AllocatorKey.claim("b");

  private final List<AllocatorKey> queued = new ArrayList<>();
  private final Waiters waiters = new Waiters(queued::add);

  /**
   * Per reason, the cluster events that wake a key parked with it (its claims naming no compute
   * domain).
   */
  private static final Map<NoPlacement, Set<Cluster>> WAKES =
      Map.ofEntries(
          Map.entry(NoPlacement.COMPUTE_DOMAIN_NOT_FOUND, EnumSet.of(Cluster.COMPUTE_DOMAINS)),
          Map.entry(NoPlacement.COMPUTE_DOMAIN_DELETING, EnumSet.of(Cluster.COMPUTE_DOMAINS)),
          Map.entry(NoPlacement.CHANNELS_NEED_COMPUTE_DOMAIN, EnumSet.of(Cluster.DEVICE_CLASSES)),
          Map.entry(NoPlacement.SHARE_MISMATCH, EnumSet.of(Cluster.DEVICE_CLASSES)),
          Map.entry(NoPlacement.NO_SUCH_DEVICE_CLASS, EnumSet.of(Cluster.DEVICE_CLASSES)),
          // Devices freed cannot make a request that no empty node could hold fit.
          Map.entry(
              NoPlacement.UNSATISFIABLE,
              EnumSet.of(Cluster.NODES, Cluster.SLICES, Cluster.DEVICE_CLASSES)),
          Map.entry(
              NoPlacement.WAITING_FOR_DEVICES,
              EnumSet.of(Cluster.NODES, Cluster.RECORDS, Cluster.SLICES, Cluster.DEVICE_CLASSES)),
          // A node's labels are part of a node change: a gang's topology rule reads them.
          Map.entry(
              NoPlacement.WAITING_FOR_GANG,
              EnumSet.of(Cluster.NODES, Cluster.RECORDS, Cluster.SLICES, Cluster.DEVICE_CLASSES)),
          // A gang no empty fleet holds: a node joining, leaving or relabelled (a node change), or
          // devices published, could change that; devices freed could not.
          Map.entry(
              NoPlacement.NEVER_FITS,
              EnumSet.of(Cluster.NODES, Cluster.SLICES, Cluster.DEVICE_CLASSES)),
          // Only the gang's own members arriving (which queue it) make it whole.
          Map.entry(NoPlacement.WAITING_FOR_GANG_MEMBERS, EnumSet.noneOf(Cluster.class)),
          // Over the store's limit per transaction: only a change of the gang itself helps.
          Map.entry(NoPlacement.GANG_TOO_LARGE, EnumSet.noneOf(Cluster.class)));

  @Test
  void eachReasonIsWokenByTheEventsThatCouldMakeItFitAndOnlyThose() {
    assertThat(WAKES.keySet()).containsExactlyInAnyOrder(NoPlacement.values());
    for (var reason : NoPlacement.values()) {
      for (boolean namesDomain : new boolean[] {false, true}) {
        for (var event : Cluster.values()) {
          var room = new Waiters(queued::add);
          queued.clear();
          room.park(A, room.take(A), reason.waitFor(namesDomain));
          room.happened(event);
          boolean expected =
              WAKES.get(reason).contains(event)
                  || (namesDomain && event == Cluster.COMPUTE_DOMAINS);
          assertThat(queued)
              .as("%s (names a domain: %s) on %s", reason, namesDomain, event)
              .isEqualTo(expected ? List.of(A) : List.of());
        }
      }
    }
  }

  @Test
  void aWokenKeyLeavesTheRoomAndIsQueuedOnce() {
    waiters.park(A, waiters.take(A), NoPlacement.WAITING_FOR_DEVICES.waitFor(false));
    waiters.park(B, waiters.take(B), NoPlacement.NO_SUCH_DEVICE_CLASS.waitFor(false));
    waiters.happened(Cluster.RECORDS);
    waiters.happened(Cluster.SLICES);
    assertThat(queued).containsExactly(A);
    assertThat(waiters.parked()).containsOnlyKeys(B);
  }

  @Test
  void aCommitWakesTheKeysWaitingForItsNodeOnly() {
    waiters.park(A, waiters.take(A), Waiters.Wait.forCommit("node-1"));
    waiters.park(B, waiters.take(B), Waiters.Wait.forCommit("node-2"));
    waiters.happened(new WakeEvent.CommitEnded("node-1"));
    assertThat(queued).containsExactly(A);
    waiters.happened(Cluster.RECORDS);
    waiters.happened(new WakeEvent.RecordAdopted("node-2"));
    assertThat(queued).containsExactly(A);
    waiters.happened(new WakeEvent.CommitEnded("node-2"));
    assertThat(queued).containsExactly(A, B);
  }

  /** Only an event it would wait for, told since its ticket, sends a parking key back at once. */
  @Test
  void anEventItDoesNotWaitForDoesNotSendItBack() {
    var ticket = waiters.take(A);
    waiters.happened(Cluster.RECORDS);
    waiters.happened(new WakeEvent.CommitEnded("node-2"));
    waiters.park(A, ticket, Waiters.Wait.forCommit("node-1"));
    assertThat(queued).isEmpty();
    assertThat(waiters.parked()).containsOnlyKeys(A);
  }

  /**
   * Its own claim changed and it is decided again: it no longer waits, and a later event does not
   * queue it.
   */
  @Test
  void aKeyDecidedAgainLeavesTheRoom() {
    waiters.park(A, waiters.take(A), NoPlacement.WAITING_FOR_DEVICES.waitFor(false));
    waiters.take(A);
    assertThat(waiters.parked()).isEmpty();
    waiters.happened(Cluster.RECORDS);
    assertThat(queued).isEmpty();
  }

  /** A room as a decision uses it: take a ticket, read, park with the ticket. */
  private interface Room {
    Waiters.Ticket take(AllocatorKey key);

    void park(AllocatorKey key, Waiters.Ticket ticket, Waiters.Wait wait);

    void happened(WakeEvent event);
  }

  private static Room real(Consumer<AllocatorKey> queue) {
    var w = new Waiters(queue);
    return new Room() {
      @Override
      public Waiters.Ticket take(AllocatorKey key) {
        return w.take(key);
      }

      @Override
      public void park(AllocatorKey key, Waiters.Ticket ticket, Waiters.Wait wait) {
        w.park(key, ticket, wait);
      }

      @Override
      public void happened(WakeEvent event) {
        w.happened(event);
      }
    };
  }

  /** The naive room: parks whatever is parked, wakes whatever is parked when an event comes. */
  private static Room naive(Consumer<AllocatorKey> queue) {
    var parked = new HashMap<AllocatorKey, Waiters.Wait>();
    return new Room() {
      @Override
      public Waiters.Ticket take(AllocatorKey key) {
        parked.remove(key);
        return new Waiters.Ticket(0);
      }

      @Override
      public void park(AllocatorKey key, Waiters.Ticket ticket, Waiters.Wait wait) {
        parked.put(key, wait);
      }

      @Override
      public void happened(WakeEvent event) {
        var woken =
            parked.entrySet().stream()
                .filter(e -> e.getValue().wakeOn().contains(event))
                .map(Map.Entry::getKey)
                .toList();
        woken.forEach(parked::remove);
        woken.forEach(queue);
      }
    };
  }

  /**
   * A decision (take, read whether a device is free, park if not) and a device freed (the index
   * sees it, then the event is told), the event at each point of the decision. Returns the points
   * at which the key neither saw the device nor went back to the queue: a lost wake-up, the key
   * waiting for a change that has already happened.
   */
  private static List<Integer> lostWakeUps(Function<Consumer<AllocatorKey>, Room> rooms) {
    var lost = new ArrayList<Integer>();
    for (int at = 0; at <= 3; at++) {
      var queue = new ArrayList<AllocatorKey>();
      var room = rooms.apply(queue::add);
      boolean[] free = {false};
      Runnable freed =
          () -> {
            free[0] = true;
            room.happened(Cluster.RECORDS);
          };
      if (at == 0) {
        freed.run();
      }
      var ticket = room.take(A);
      if (at == 1) {
        freed.run();
      }
      boolean fits = free[0];
      if (at == 2) {
        freed.run(); // after the failed fit, before the park
      }
      if (!fits) {
        room.park(A, ticket, NoPlacement.WAITING_FOR_DEVICES.waitFor(false));
      }
      if (at == 3) {
        freed.run();
      }
      if (!fits && !queue.contains(A)) {
        lost.add(at);
      }
    }
    return lost;
  }

  @Test
  void anEventBetweenTheFailedFitAndTheParkIsNotLost() {
    assertThat(lostWakeUps(WaitersTest::real)).isEmpty();
  }

  @Test
  void theNaiveRoomThatParksAfterCheckingLosesThatWakeUp() {
    assertThat(lostWakeUps(WaitersTest::naive)).containsExactly(2);
  }
}
