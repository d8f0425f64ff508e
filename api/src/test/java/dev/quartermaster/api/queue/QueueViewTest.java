package dev.quartermaster.api.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.workload.ClaimTemplate;
import dev.quartermaster.api.workload.RestartPolicy;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Where a workload stands in its queue, case by case: the last workload listed is the one asked
 * about; a ledger admits the workloads named in {@code admitted}.
 */
class QueueViewTest {
  private static final Instant T0 = Instant.parse("2026-11-27T08:00:00Z");

  private static Queue queue(
      String name, int gpus, Map<String, Integer> borrowing, Map<String, Integer> lending) {
    return queue(name, gpus, borrowing, lending, QueueOrdering.BestEffortFIFO);
  }

  private static Queue queue(
      String name,
      int gpus,
      Map<String, Integer> borrowing,
      Map<String, Integer> lending,
      QueueOrdering ordering) {
    return new Queue(
        ObjectMeta.named(name),
        new QueueSpec(Optional.of("lab"), Map.of("gpu", gpus), borrowing, lending, 1, ordering),
        null);
  }

  /** {@code name} in {@code queue} asking {@code gpus}, created {@code second}s after T0. */
  private static Workload workload(
      String name, String queue, int gpus, int second, Optional<String> priority) {
    var claim =
        new ClaimTemplate(
            "gpu",
            new ResourceClaimSpec(
                List.of(new DeviceRequest("gpu", "gpu", gpus, List.of())), Optional.empty()));
    var group =
        new WorkerGroup("w", 1, TaskTemplate.EMPTY, List.of(claim), RestartPolicy.OnFailure);
    var meta = ObjectMeta.named(name).withUid("uid-" + name).withCreatedAt(T0.plusSeconds(second));
    return new Workload(
        meta, new WorkloadSpec(List.of(group), Optional.empty()).inQueue(queue, priority), null);
  }

  private static Workload workload(String name, String queue, int gpus, int second) {
    return workload(name, queue, gpus, second, Optional.empty());
  }

  private static QuotaLedger ledger(List<Workload> workloads, String... admitted) {
    var entries = new LinkedHashMap<String, Admitted>();
    for (var name : admitted) {
      var w =
          workloads.stream()
              .filter(x -> x.metadata().name().equals(name))
              .findFirst()
              .orElseThrow();
      entries.put(
          name,
          new Admitted(
              w.metadata().uid(),
              w.spec().queueName(),
              Map.of("w", 1),
              Demand.of(w.spec()),
              0,
              T0.plusSeconds(60)));
    }
    return new QuotaLedger(
        ObjectMeta.named("lab"), new QuotaLedgerSpec(List.of("team-a", "team-b"), entries), null);
  }

  private static final List<PriorityClass> CLASSES =
      List.of(new PriorityClass(ObjectMeta.named("urgent"), new PriorityClassSpec(100, ""), null));

  static Stream<Arguments> cases() {
    var a = queue("team-a", 8, Map.of(), Map.of());
    var aLendsTwo = queue("team-a", 8, Map.of(), Map.of("gpu", 2));
    var b = queue("team-b", 4, Map.of(), Map.of());
    var bNoBorrow = queue("team-b", 4, Map.of("gpu", 0), Map.of());
    var bStrict = queue("team-b", 4, Map.of(), Map.of(), QueueOrdering.StrictFIFO);
    var first = workload("first", "team-b", 4, 0);
    var second = workload("second", "team-b", 4, 1);
    var big = workload("big", "team-b", 16, 1);
    var small = workload("small", "team-b", 1, 2);
    var urgent = workload("urgent", "team-b", 16, 3, Optional.of("urgent"));
    var unknownClass = workload("odd", "team-b", 1, 2, Optional.of("nightly"));
    var aUsesAll = workload("a-all", "team-a", 8, 0);
    var lost = workload("lost", "team-z", 1, 0);
    return Stream.of(
        Arguments.of(
            "admitted: its ledger entry",
            List.of(a, b),
            List.of(first),
            List.of("first"),
            "admitted through team-b in lab, gpu=4"),
        Arguments.of(
            "over its quota, the cohort lends what team-a lends (2 of its 8)",
            List.of(aLendsTwo, b),
            List.of(first, second),
            List.of("first"),
            "waiting, 0 ahead: needs gpu 4: quota gpu 4/4 used; cohort can lend 2; 0 ahead of it"),
        Arguments.of(
            "borrowing limit 0: the cohort lends 8 but it may not borrow",
            List.of(a, bNoBorrow),
            List.of(first, second),
            List.of("first"),
            "waiting, 0 ahead: needs gpu 4: quota gpu 4/4 used; cohort can lend 0"
                + " (borrowing limit 0, 0 borrowed); 0 ahead of it"),
        Arguments.of(
            "the cohort's other queue uses all it has: nothing to lend",
            List.of(a, b),
            List.of(aUsesAll, first, second),
            List.of("a-all", "first"),
            "waiting, 0 ahead: needs gpu 4: quota gpu 4/4 used; cohort can lend 0; 0 ahead of it"),
        Arguments.of(
            "higher priority goes first: the big urgent one is ahead of an older small one",
            List.of(a, b),
            List.of(big, urgent, aUsesAll, first, small),
            List.of("a-all", "first"),
            "waiting, 2 ahead: needs gpu 1: quota gpu 4/4 used; cohort can lend 0; 2 ahead of it"),
        Arguments.of(
            "its queue uses 11 of its 8, borrowing all 3 team-a lends: no room (it read 'fits')",
            List.of(
                queue("team-a", 8, Map.of(), Map.of("gpu", 3)),
                queue("team-b", 8, Map.of(), Map.of())),
            List.of(workload("b-eleven", "team-b", 11, 0), workload("b-two", "team-b", 2, 1)),
            List.of("b-eleven"),
            "waiting, 0 ahead: needs gpu 2: quota gpu 11/8 used; cohort can lend 0; 0 ahead of it"),
        Arguments.of(
            "what it does not use is lent to another queue: not room of its own",
            List.of(queue("team-a", 8, Map.of(), Map.of()), b),
            List.of(
                workload("a-five", "team-a", 5, 0),
                workload("b-six", "team-b", 6, 0),
                workload("a-three", "team-a", 3, 1)),
            List.of("a-five", "b-six"),
            "waiting, 0 ahead: needs gpu 3: quota gpu 5/8 used (2 of the rest lent to other"
                + " queues); cohort can lend 0; 0 ahead of it"),
        Arguments.of(
            "a quota lowered under what is admitted: the class is over quota, nothing more of it",
            List.of(queue("team-a", 2, Map.of(), Map.of()), b),
            List.of(workload("b-eight", "team-b", 8, 0), workload("a-one", "team-a", 1, 1)),
            List.of("b-eight"),
            "waiting, 0 ahead: needs gpu 1: quota gpu 0/2 used; the cohort is over its quota of"
                + " gpu (gpu: the cohort's queues borrow 4, and lend only 2): nothing more of it is"
                + " admitted until enough of what is admitted finishes; 0 ahead of it"),
        Arguments.of(
            "fits, but StrictFIFO takes the head first",
            List.of(a, bStrict),
            List.of(big, small),
            List.of(),
            "waiting, 1 ahead: its quota fits; StrictFIFO takes those ahead of it first;"
                + " 1 ahead of it"),
        Arguments.of(
            "fits, not taken yet",
            List.of(a, b),
            List.of(small),
            List.of(),
            "waiting, 0 ahead: its quota fits; the admission controller has not taken it yet;"
                + " 0 ahead of it"),
        Arguments.of(
            "a priority class that does not exist: nothing admits it",
            List.of(a, b),
            List.of(big, small, unknownClass),
            List.of(),
            "waiting, 0 ahead: priority class nightly does not exist; nothing admits it"),
        Arguments.of(
            "one whose priority class does not exist is not ahead of anyone",
            List.of(a, b),
            List.of(unknownClass, small),
            List.of(),
            "waiting, 0 ahead: its quota fits; the admission controller has not taken it yet;"
                + " 0 ahead of it"),
        Arguments.of(
            "being deleted, not admitted: not in line at all",
            List.of(a, b),
            List.of(
                big,
                workload("gone", "team-b", 1, 0)
                    .withMetadata(ObjectMeta.named("gone").withUid("uid-gone").withDeletedAt(T0))),
            List.of(),
            "Deleting: being deleted; nothing admits it"),
        Arguments.of(
            "a queue that does not exist",
            List.of(a, b),
            List.of(lost),
            List.of(),
            "waiting, 0 ahead: queue team-z does not exist; nothing admits it"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void standing(
      String name,
      List<Queue> queues,
      List<Workload> workloads,
      List<String> admitted,
      String expected) {
    var asked = workloads.getLast();
    var standing =
        QueueView.standingOf(
            asked,
            queues,
            List.of(ledger(workloads, admitted.toArray(String[]::new))),
            workloads,
            CLASSES);
    assertThat(text(standing)).isEqualTo(expected);
  }

  @Test
  void pendingIsInTheOrderTheyAreTakenAndLeavesOutTheAdmittedAndTheDeleted() {
    var first = workload("first", "team-b", 4, 0);
    var old = workload("old", "team-b", 1, 1);
    var urgent = workload("urgent", "team-b", 2, 5, Optional.of("urgent"));
    var deleting =
        workload("deleting", "team-b", 1, 0)
            .withMetadata(workload("deleting", "team-b", 1, 0).metadata().withDeletedAt(T0));
    var other = workload("other", "team-a", 1, 0);
    var all = List.of(first, old, urgent, deleting, other);
    var b = queue("team-b", 4, Map.of(), Map.of());
    var view =
        QueueView.of(
            b,
            List.of(queue("team-a", 8, Map.of(), Map.of()), b),
            List.of(ledger(all, "first")),
            all,
            CLASSES);

    assertThat(view.pending().stream().map(w -> w.metadata().name()))
        .containsExactly("urgent", "old");
    assertThat(view.admitted()).containsOnlyKeys("first");
    assertThat(view.quota().room("team-b", "gpu")).hasValue(8);
  }

  @Test
  void quotaHeldForAPreemptorIsNamed() {
    var small = workload("small", "team-b", 1, 2);
    var urgent = workload("urgent", "team-a", 4, 1, Optional.of("urgent"));
    var all = List.of(urgent, small);
    var b = queue("team-b", 4, Map.of(), Map.of());
    var ledger =
        new QuotaLedger(
            ObjectMeta.named("lab"),
            new QuotaLedgerSpec(
                List.of("team-a", "team-b"),
                Map.of(),
                Map.of(
                    "urgent",
                    new Nomination("uid-urgent", "team-a", 100, List.of("uid-victim"), T0))),
            null);
    var view =
        QueueView.of(
            b, List.of(queue("team-a", 8, Map.of(), Map.of()), b), List.of(ledger), all, CLASSES);

    assertThat(text(view.standing(small)))
        .isEqualTo(
            "waiting, 0 ahead: its quota fits beside what is admitted, but the cohort holds quota"
                + " for urgent, which evicted others and waits for them to stop; 0 ahead of it");
  }

  @Test
  void aFinishedJobIsNotInLine() {
    var done = workload("done", "team-b", 4, 0);
    var finished =
        new Workload(
            done.metadata(),
            done.spec(),
            new dev.quartermaster.api.workload.WorkloadStatus(
                1,
                List.of(),
                List.of(
                    new dev.quartermaster.api.meta.Condition(
                        dev.quartermaster.api.workload.WorkloadConditions.ADMITTED,
                        dev.quartermaster.api.meta.Condition.Status.False,
                        dev.quartermaster.api.workload.WorkloadConditions.FINISHED,
                        "its job is over",
                        Optional.of(T0)))));
    var next = workload("next", "team-b", 4, 1);
    var all = List.of(finished, next);
    var b = queue("team-b", 4, Map.of(), Map.of());
    var view = QueueView.of(b, List.of(b), List.of(ledger(all)), all, CLASSES);

    assertThat(view.pending().stream().map(w -> w.metadata().name())).containsExactly("next");
    assertThat(text(view.standing(finished)))
        .isEqualTo("Finished: its job is over; its quota went back to the queue");
  }

  private static String text(Standing s) {
    return switch (s) {
      case Standing.In in ->
          "admitted through "
              + in.admission().queue()
              + " in "
              + in.cohort()
              + ", gpu="
              + in.admission().usage().get("gpu");
      case Standing.Waiting w -> "waiting, " + w.ahead() + " ahead: " + w.why();
      case Standing.Out o -> o.state() + ": " + o.why();
    };
  }
}
