package dev.quartermaster.core.informer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class IndexerTest {

  record Pod(String name, List<String> nodes) {}

  private final Indexer<Pod> indexer =
      new Indexer<>(
          Pod::name,
          Map.<String, Function<? super Pod, ? extends java.util.Collection<String>>>of(
              "byNode", Pod::nodes));

  @Test
  void multiValuedIndexFollowsPutsAndRemoves() {
    indexer.put(new Pod("p1", List.of("n1", "n2")), 1);
    indexer.put(new Pod("p2", List.of("n2")), 2);
    assertThat(indexer.keysByIndex("byNode", "n2")).containsExactly("p1", "p2");
    assertThat(indexer.keysByIndex("byNode", "n1")).containsExactly("p1");

    assertThat(indexer.put(new Pod("p1", List.of("n3")), 3))
        .hasValueSatisfying(old -> assertThat(old.revision()).isEqualTo(1));
    assertThat(indexer.keysByIndex("byNode", "n1")).isEmpty();
    assertThat(indexer.keysByIndex("byNode", "n2")).containsExactly("p2");
    assertThat(indexer.countByIndex("byNode", "n2")).isEqualTo(1);
    assertThat(indexer.countByIndex("byNode", "n1")).isZero();
    assertThat(indexer.byIndex("byNode", "n3")).containsExactly(new Pod("p1", List.of("n3")));

    // A move that keeps one value: only the changed values are touched, the kept one stays.
    indexer.put(new Pod("p1", List.of("n3", "n4")), 4);
    indexer.put(new Pod("p1", List.of("n4", "n5")), 5);
    assertThat(indexer.keysByIndex("byNode", "n3")).isEmpty();
    assertThat(indexer.keysByIndex("byNode", "n4")).containsExactly("p1");
    assertThat(indexer.keysByIndex("byNode", "n5")).containsExactly("p1");
    indexer.put(new Pod("p1", List.of("n4", "n5")), 6); // unchanged values: nothing moves
    assertThat(indexer.keysByIndex("byNode", "n4")).containsExactly("p1");
    indexer.put(new Pod("p1", List.of("n3")), 7);
    assertThat(indexer.keysByIndex("byNode", "n4")).isEmpty();
    assertThat(indexer.keysByIndex("byNode", "n5")).isEmpty();

    assertThat(indexer.remove("p2")).isPresent();
    assertThat(indexer.remove("p2")).isEmpty();
    assertThat(indexer.keysByIndex("byNode", "n2")).isEmpty();
    assertThat(indexer.size()).isEqualTo(1);
    assertThat(indexer.revisionOf("p1")).hasValue(7);
    assertThat(indexer.revisionOf("p2")).isEmpty();
  }

  /** Point reads answer from a map of their own: it must follow every put and remove. */
  @Test
  void pointReadsAgreeWithTheSortedEntriesAfterEveryPutAndRemove() {
    var random = new java.util.Random(7);
    for (int i = 1; i <= 2_000; i++) {
      var key = "p" + random.nextInt(20);
      if (random.nextInt(3) == 0) {
        indexer.remove(key);
      } else {
        indexer.put(new Pod(key, List.of("n" + random.nextInt(3))), i);
      }
      var entries = indexer.entries();
      for (int k = 0; k < 20; k++) {
        var name = "p" + k;
        var entry = java.util.Optional.ofNullable(entries.get(name));
        assertThat(indexer.get(name)).isEqualTo(entry.map(Indexer.Entry::object));
        assertThat(indexer.revisionOf(name))
            .isEqualTo(
                entry
                    .map(e -> java.util.OptionalLong.of(e.revision()))
                    .orElse(java.util.OptionalLong.empty()));
      }
    }
  }

  @Test
  void listIsInKeyOrderAndASnapshot() {
    indexer.put(new Pod("b", List.of()), 1);
    indexer.put(new Pod("a", List.of()), 2);
    List<Pod> snapshot = indexer.list();
    indexer.put(new Pod("c", List.of()), 3);
    assertThat(snapshot).extracting(Pod::name).containsExactly("a", "b");
    assertThat(indexer.keys()).containsExactly("a", "b", "c");
  }

  record Job(String name, String group, int state) {}

  @Test
  void aTallyCountsEachObjectOnceUnderItsKeyAndSlotAsItMoves() {
    var jobs =
        new Indexer<Job>(
            Job::name,
            Map.of(),
            Map.of(
                "byGroup",
                new Tally<Job>(
                    j ->
                        j.group().isEmpty()
                            ? java.util.Optional.empty()
                            : java.util.Optional.of(j.group()),
                    Job::state,
                    3)));
    jobs.put(new Job("a", "g", 0), 1);
    jobs.put(new Job("b", "g", 0), 2);
    jobs.put(new Job("c", "h", 2), 3);
    jobs.put(new Job("d", "", 1), 4); // no key: not counted
    assertThat(jobs.tally("byGroup", "g")).containsExactly(2, 0, 0);
    assertThat(jobs.tally("byGroup", "h")).containsExactly(0, 0, 1);

    jobs.put(new Job("a", "g", 1), 5); // a new slot
    jobs.put(new Job("b", "h", 0), 6); // a new key
    assertThat(jobs.tally("byGroup", "g")).containsExactly(0, 1, 0);
    assertThat(jobs.tally("byGroup", "h")).containsExactly(1, 0, 1);

    jobs.remove("a");
    jobs.remove("d");
    assertThat(jobs.tally("byGroup", "g")).containsExactly(0, 0, 0);
    assertThat(jobs.tally("byGroup", "nosuch")).containsExactly(0, 0, 0);
    var copy = jobs.tally("byGroup", "h");
    copy[0] = 99;
    assertThat(jobs.tally("byGroup", "h")).as("a copy").containsExactly(1, 0, 1);
  }
}
