package dev.quartermaster.core.informer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.core.informer.FakeSource.Item;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class InformerTest {

  private final DeterministicEnv env = new DeterministicEnv(99);
  private final FakeSource source = new FakeSource();
  private final RecordingHandler handler = new RecordingHandler();
  private final Informer<Item> informer =
      Informer.builder(env, source, Item::name, Item::revision)
          .index("byNode", item -> Set.of(item.node()))
          .retryBackoff(Duration.ofSeconds(1), Duration.ofSeconds(30))
          .build();

  private void startSynced() {
    informer.addHandler(handler);
    informer.start();
    env.runUntilIdle();
    assertThat(informer.hasSynced()).isTrue();
  }

  @Test
  void listThenWatchFillsTheCache() {
    source.put("a", "n1", "x");
    source.put("b", "n2", "x");
    source.put("c", "n1", "x");
    assertThat(informer.hasSynced()).isFalse();

    startSynced();

    assertThat(informer.cache().keys()).containsExactly("a", "b", "c");
    assertThat(informer.syncedRevision()).isEqualTo(3);
    assertThat(handler.takeAll()).containsExactly("add a@1", "add b@2", "add c@3");
    assertThat(source.lastWatchFrom).isEqualTo(3);

    source.put("a", "n1", "y");
    source.put("d", "n3", "x");
    source.delete("b");
    env.runUntilIdle();

    assertThat(informer.cache().get("a").orElseThrow().value()).isEqualTo("y");
    assertThat(informer.cache().keys()).containsExactly("a", "c", "d");
    assertThat(informer.syncedRevision()).isEqualTo(6);
    assertThat(handler.takeAll()).containsExactly("update a@1->a@4", "add d@5", "delete b@2");
  }

  @Test
  void eventsAreAppliedInOrder() {
    startSynced();
    for (int i = 0; i < 5; i++) {
      source.put("a", "n1", "v" + i);
    }
    env.runUntilIdle();
    assertThat(informer.cache().get("a").orElseThrow().value()).isEqualTo("v4");
    assertThat(informer.cache().revisionOf("a")).hasValue(5);
    assertThat(handler.takeAll())
        .containsExactly(
            "add a@1", "update a@1->a@2", "update a@2->a@3", "update a@3->a@4", "update a@4->a@5");
  }

  @Test
  void duplicatesAndOldRevisionsAreIgnored() {
    startSynced();
    source.put("a", "n1", "v1");
    source.put("b", "n1", "v1");
    source.put("a", "n1", "v2");
    source.delete("b");
    env.runUntilIdle();
    handler.takeAll();

    // Everything again, and the first write of "a" once more on its own.
    source.history().forEach(source::redeliver);
    source.redeliver(new WatchEvent.Modified<>(new Item("a", "n1", "v1", 1), 1));
    env.runUntilIdle();

    assertThat(handler.takeAll()).isEmpty();
    assertThat(informer.cache().get("a").orElseThrow().value()).isEqualTo("v2");
    assertThat(informer.cache().get("b")).isEmpty();
    assertThat(informer.syncedRevision()).isEqualTo(4);
  }

  @Test
  void twoObjectsWrittenAtOneRevisionAreBothApplied() {
    startSynced();
    // One transaction writing two keys shares a revision; the second is not a duplicate.
    source.put("x", "n1", "seed");
    env.runUntilIdle();
    handler.takeAll();
    source.redeliver(new WatchEvent.Added<>(new Item("p", "n1", "v", 10), 10));
    source.redeliver(new WatchEvent.Added<>(new Item("q", "n1", "v", 10), 10));
    env.runUntilIdle();
    assertThat(handler.takeAll()).containsExactly("add p@10", "add q@10");
  }

  @Test
  void onCompactionItRelistsAndReportsTheDifference() {
    source.put("keep", "n1", "v1");
    source.put("change", "n1", "v1");
    source.put("vanish", "n2", "v1");
    startSynced();
    handler.takeAll();

    source.dropEvents();
    source.put("change", "n2", "v2");
    source.delete("vanish");
    source.put("new", "n3", "v1");
    source.put("brief", "n3", "v1");
    source.delete("brief");
    env.runUntilIdle();
    // Nothing arrived: the watch is lagging.
    assertThat(informer.cache().keys()).containsExactly("change", "keep", "vanish");
    assertThat(informer.syncedRevision()).isEqualTo(3);

    int listsBefore = source.lists;
    source.compact();
    env.runUntilIdle();

    assertThat(source.lists).isEqualTo(listsBefore + 1);
    assertThat(informer.cache().list()).containsExactlyElementsOf(source.items());
    assertThat(informer.syncedRevision()).isEqualTo(source.revision());
    assertThat(handler.takeAll())
        .containsExactly("delete vanish@3", "update change@2->change@4", "add new@6");
    assertThat(informer.cache().byIndex("byNode", "n2"))
        .extracting(Item::name)
        .containsExactly("change");

    // And it watches again, from the list's revision.
    assertThat(source.lastWatchFrom).isEqualTo(source.revision());
    source.put("after", "n1", "v1");
    env.runUntilIdle();
    assertThat(handler.takeAll()).containsExactly("add after@9");
  }

  /**
   * An object deleted and made again under its name while the informer did not look: with an
   * identity (here the item's value stands for a uid) the relist tells a delete and an add, as the
   * lost events would have; an object changed in place is still an update. Without an identity the
   * same relist is one update (the informer above).
   */
  @Test
  void anObjectReplacedUnseenIsItsDeleteAndAnAddWhenTheInformerKnowsIdentities() {
    var identified =
        Informer.builder(env, source, Item::name, Item::revision).identity(Item::value).build();
    source.put("claim", "n1", "uid-1");
    source.put("task", "n1", "uid-7");
    identified.addHandler(handler);
    identified.start();
    env.runUntilIdle();
    handler.takeAll();

    source.dropEvents();
    source.delete("claim");
    source.put("claim", "n2", "uid-2");
    source.put("task", "n2", "uid-7");
    source.compact();
    env.runUntilIdle();

    assertThat(handler.takeAll())
        .containsExactly("delete claim@1", "add claim@4", "update task@2->task@5");
    assertThat(identified.cache().get("claim").orElseThrow().value()).isEqualTo("uid-2");

    // A watch's event that replaces what the cache holds (a delete it never delivered) likewise.
    source.redeliver(new WatchEvent.Modified<>(new Item("claim", "n3", "uid-3", 9), 9));
    env.runUntilIdle();
    assertThat(handler.takeAll()).containsExactly("delete claim@4", "add claim@9");
  }

  @Test
  void withoutAnIdentityAReplacedObjectIsAnUpdate() {
    source.put("claim", "n1", "uid-1");
    startSynced();
    handler.takeAll();
    source.dropEvents();
    source.delete("claim");
    source.put("claim", "n2", "uid-2");
    source.compact();
    env.runUntilIdle();
    assertThat(handler.takeAll()).containsExactly("update claim@1->claim@3");
  }

  @Test
  void aWatchThatStartsBehindCompactedHistoryRelists() {
    startSynced();
    source.dropEvents();
    source.put("a", "n1", "v1");
    // The re-list answers from before the write, so its watch asks for compacted history.
    source.listStaleOnceAt(0);
    source.compact();
    env.runUntilIdle();
    assertThat(source.lists).isEqualTo(3);
    assertThat(informer.cache().keys()).containsExactly("a");
    assertThat(informer.syncedRevision()).isEqualTo(1);
    assertThat(source.watching()).isTrue();
  }

  @Test
  void aListBehindTheCacheIsRefusedAndRetried() {
    source.put("a", "n1", "v1");
    source.put("b", "n1", "v1");
    startSynced();
    handler.takeAll();
    source.listStaleOnceAt(1); // a lagging replica
    source.close("failover");
    env.runUntilIdle();
    env.runUntil(() -> source.lists == 2, Duration.ofMinutes(1));
    // The stale list did not take the cache back to revision 1.
    assertThat(informer.syncedRevision()).isEqualTo(2);
    assertThat(informer.cache().keys()).containsExactly("a", "b");
    assertThat(handler.takeAll()).isEmpty();
    assertThat(env.runUntil(source::watching, Duration.ofMinutes(1))).isTrue();
    assertThat(source.lists).isEqualTo(3);
    assertThat(informer.cache().keys()).containsExactly("a", "b");
    assertThat(handler.takeAll()).isEmpty();
  }

  @Test
  void closedWatchRelistsAfterBackoff() {
    source.put("a", "n1", "v1");
    startSynced();
    handler.takeAll();
    int listsBefore = source.lists;
    source.close("server going away");
    source.put("b", "n1", "v1"); // not delivered: no watch
    env.runUntilIdle();
    assertThat(source.lists).isEqualTo(listsBefore);
    assertThat(informer.cache().keys()).containsExactly("a");

    // Backoff: 1 s base plus up to 1 s of jitter.
    env.advance(Duration.ofMillis(2001));
    assertThat(source.lists).isEqualTo(listsBefore + 1);
    assertThat(informer.cache().keys()).containsExactly("a", "b");
    assertThat(handler.takeAll()).containsExactly("add b@2");
    assertThat(source.watching()).isTrue();
  }

  @Test
  void listFailuresAreRetriedWithGrowingBackoff() {
    source.put("a", "n1", "v1");
    source.failNextList(new IOException("connection refused"));
    source.failNextList(new IOException("connection refused"));
    source.failNextList(new IOException("connection refused"));
    informer.start();
    List<Long> listTimesMillis = new ArrayList<>();
    int seenLists = 0;
    while (!informer.hasSynced()) {
      assertThat(env.runNext()).as("a retry is always pending").isTrue();
      if (source.lists > seenLists) {
        seenLists = source.lists;
        listTimesMillis.add(env.nanoTime() / 1_000_000);
      }
    }
    assertThat(listTimesMillis).hasSize(4);
    assertThat(listTimesMillis.getFirst()).isZero();
    List<Long> gaps = new ArrayList<>();
    for (int i = 1; i < listTimesMillis.size(); i++) {
      gaps.add(listTimesMillis.get(i) - listTimesMillis.get(i - 1));
    }
    // Base 1 s doubling, each with up to as much again of jitter.
    assertThat(gaps.get(0)).isBetween(1000L, 2000L);
    assertThat(gaps.get(1)).isBetween(2000L, 4000L);
    assertThat(gaps.get(2)).isBetween(4000L, 8000L);
    assertThat(informer.cache().keys()).containsExactly("a");
  }

  @Test
  void syncedRevisionNeverGoesBack() {
    List<Long> observed = new ArrayList<>();
    startSynced();
    for (int round = 0; round < 20; round++) {
      int pick = env.random().nextInt(5);
      switch (pick) {
        case 0, 1 ->
            source.put("k" + env.random().nextInt(4), "n" + env.random().nextInt(3), "v" + round);
        case 2 -> {
          if (!source.items().isEmpty()) {
            source.delete(source.items().getFirst().name());
          }
        }
        case 3 -> source.history().stream().limit(3).forEach(source::redeliver);
        default -> {
          source.dropEvents();
          source.put("k9", "n1", "v" + round);
          source.compact();
        }
      }
      observed.add(informer.syncedRevision());
      env.runUntilIdle();
      observed.add(informer.syncedRevision());
    }
    assertThat(observed).isSorted();
    assertThat(informer.syncedRevision()).isEqualTo(source.revision());
    assertThat(informer.cache().list()).containsExactlyElementsOf(source.items());
  }

  @Test
  void bookmarkAdvancesSyncedRevisionWithoutChanges() {
    startSynced();
    source.dropEvents();
    source.put("elsewhere", "n1", "v"); // as if another kind was written
    source.bookmark();
    env.runUntilIdle();
    assertThat(informer.syncedRevision()).isEqualTo(1);
  }

  /**
   * A node agent's informer is told of every change of the cluster and keeps few: bookmarks in a
   * row are raised by one queued task, and a bookmark never overtakes an event queued before it.
   */
  @Test
  void bookmarksInARowAreRaisedOnceAndNeverBeforeAnEarlierEvent() {
    startSynced();
    source.dropEvents();
    source.put("other-1", "n9", "v"); // @1, not ours: a bookmark
    source.bookmark();
    source.put("other-2", "n9", "v"); // @2
    source.bookmark();
    source.deliverEvents();
    source.put("ours", "n1", "v"); // @3, an event
    source.dropEvents();
    source.put("other-3", "n9", "v"); // @4
    source.bookmark();
    var cachedWhenCaughtUp = new ArrayList<Boolean>();
    informer.whenCaughtUp(
        3, () -> cachedWhenCaughtUp.add(informer.cache().get("ours").isPresent()));
    int tasks = 0;
    while (env.runNext()) {
      tasks++;
    }
    assertThat(cachedWhenCaughtUp)
        .as("when the informer says it reached 3, 'ours' is in its cache")
        .containsExactly(true);
    assertThat(informer.syncedRevision()).isEqualTo(4);
    assertThat(tasks)
        .as("queued tasks: bookmarks 1 and 2 as one, the event, bookmark 4")
        .isEqualTo(3);
  }

  @Test
  void secondaryIndexFollowsChanges() {
    source.put("a", "n1", "v");
    source.put("b", "n1", "v");
    source.put("c", "n2", "v");
    startSynced();
    assertThat(informer.cache().byIndex("byNode", "n1"))
        .extracting(Item::name)
        .containsExactly("a", "b");
    assertThat(informer.cache().keysByIndex("byNode", "n2")).containsExactly("c");
    assertThat(informer.cache().byIndex("byNode", "n9")).isEmpty();

    source.put("b", "n2", "v"); // moves
    source.delete("c");
    env.runUntilIdle();
    assertThat(informer.cache().keysByIndex("byNode", "n1")).containsExactly("a");
    assertThat(informer.cache().keysByIndex("byNode", "n2")).containsExactly("b");

    assertThatThrownBy(() -> informer.cache().byIndex("byColour", "red"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("byColour");
  }

  @Test
  void whenCaughtUpFiresOnceTheCacheReachesTheRevision() {
    startSynced();
    List<String> fired = new ArrayList<>();
    informer.whenCaughtUp(0, () -> fired.add("r0"));
    assertThat(fired).containsExactly("r0"); // already there: at once

    informer.whenCaughtUp(3, () -> fired.add("r3"));
    informer.whenCaughtUp(2, () -> fired.add("r2"));
    var cancelled = informer.whenCaughtUp(2, () -> fired.add("never"));
    assertThat(cancelled.cancel()).isTrue();

    source.put("a", "n1", "v");
    env.runUntilIdle();
    assertThat(fired).containsExactly("r0");
    source.put("a", "n1", "v2");
    env.runUntilIdle();
    assertThat(fired).containsExactly("r0", "r2");
    assertThat(informer.syncedRevision()).isGreaterThanOrEqualTo(2);

    // Reached through a re-list rather than an event.
    source.dropEvents();
    source.put("b", "n1", "v");
    source.put("b", "n1", "v2");
    env.runUntilIdle();
    assertThat(fired).containsExactly("r0", "r2");
    source.compact();
    env.runUntilIdle();
    assertThat(fired).containsExactly("r0", "r2", "r3");
    source.put("c", "n1", "v");
    env.runUntilIdle();
    assertThat(fired).containsExactly("r0", "r2", "r3"); // one-shot
  }

  @Test
  void handlerSeesTheCacheAlreadyUpdated() {
    List<Boolean> consistent = new ArrayList<>();
    informer.addHandler(
        new EventHandler<>() {
          @Override
          public void onAdd(Item object) {
            consistent.add(informer.cache().get(object.name()).orElseThrow().equals(object));
          }
        });
    informer.start();
    env.runUntilIdle();
    source.put("a", "n1", "v");
    env.runUntilIdle();
    assertThat(consistent).containsExactly(true);
  }

  @Test
  void aLateHandlerIsToldAboutWhatIsAlreadyCached() {
    source.put("a", "n1", "v");
    source.put("b", "n1", "v");
    informer.start();
    env.runUntilIdle();
    informer.addHandler(handler);
    env.runUntilIdle();
    assertThat(handler.takeAll()).containsExactly("add a@1", "add b@2");
  }

  @Test
  void aFailingHandlerDoesNotStopTheOthersOrTheCache() {
    informer.addHandler(
        new EventHandler<>() {
          @Override
          public void onAdd(Item object) {
            throw new IllegalStateException("buggy handler");
          }
        });
    startSynced();
    source.put("a", "n1", "v");
    env.runUntilIdle();
    assertThat(handler.takeAll()).containsExactly("add a@1");
    assertThat(informer.cache().keys()).containsExactly("a");
  }

  @Test
  void eventsFromAReplacedWatchAreIgnored() {
    startSynced();
    WatchSink<Item> oldSink = source.currentSink();
    source.dropEvents();
    source.put("a", "n1", "v");
    source.compact();
    env.runUntilIdle();
    handler.takeAll();
    // The old stream wakes up late with something the new list never had.
    oldSink.event(new WatchEvent.Added<>(new Item("ghost", "n1", "v", 50), 50));
    oldSink.closed("late");
    env.runUntilIdle();
    assertThat(informer.cache().keys()).containsExactly("a");
    assertThat(handler.takeAll()).isEmpty();
    assertThat(env.pendingTasks()).isZero(); // and no re-list was scheduled
  }

  @Test
  void stopEndsTheWatchAndRetries() {
    startSynced();
    informer.stop();
    env.runUntilIdle();
    assertThat(source.watching()).isFalse();
    assertThat(env.pendingTasks()).isZero();
    assertThatThrownBy(informer::start).isInstanceOf(IllegalStateException.class);
  }
}
