package dev.quartermaster.agent.tasks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.agent.runtime.RuntimeTask;
import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.meta.OwnerReference;
import dev.quartermaster.api.workload.Task;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * I2 at the seam: a claim is never released while a process started with it may still run. A task
 * {@code train} runs with its claim {@code c}; then, in every order of every subset, the claim is
 * deleted, moved to another node, re-created under a new uid, the task is deleted, and the process
 * exits. After each step the claim sync's question is asked as it asks it (of the object while it
 * is the same uid, else of the held claim): "free" while the process runs is an I2 violation; once
 * the process is gone and the claim is no longer wanted here, anything but "free" is a claim held
 * for ever. The real seam must pass; the naive answers kept in {@link NaiveClaimRelease} must be
 * caught.
 */
class ClaimReleaseIncidentTest {
  private static final String NODE = "node-1";
  private static final String TASK = "train";
  private static final String TASK_UID = "uid-1";
  private static final ClaimRef CLAIM = new ClaimRef("c-1", "c");

  enum Step {
    DELETE_CLAIM,
    MOVE_CLAIM,
    RECREATE_CLAIM,
    DELETE_TASK,
    EXIT
  }

  enum Answer {
    REAL,
    CLAIM_OBJECT_ONLY,
    ON_THE_STORES_WORD
  }

  /** One node's world: the task as cached, the claim object, the process. */
  private static final class World {
    Task task = ClaimUseTest.task(TASK, TASK_UID, false);
    ResourceClaim claim = claim(CLAIM.uid(), NODE);
    final ClaimUse use =
        new ClaimUse(
            NODE, name -> name.equals(TASK) ? Optional.of(task) : Optional.empty(), c -> {});
    final RuntimeTask process = TestRuns.start(use, TASK, TASK_UID, List.of(CLAIM));
    boolean exited;

    World() {
      TestRuns.pass(process);
    }

    ClaimRelease answer(Answer answer) {
      return switch (answer) {
        case REAL -> use;
        case CLAIM_OBJECT_ONLY -> NaiveClaimRelease.claimObjectOnly(NODE);
        case ON_THE_STORES_WORD ->
            NaiveClaimRelease.onTheStoresWord(NODE, name -> Optional.of(task));
      };
    }

    void apply(Step step) {
      switch (step) {
        case DELETE_CLAIM ->
            claim =
                new ResourceClaim(
                    claim.metadata().withDeletedAt(Instant.EPOCH), claim.spec(), claim.status());
        case MOVE_CLAIM ->
            claim =
                new ResourceClaim(
                    claim.metadata(),
                    claim.spec(),
                    claim.status().withAllocation(new Allocation("node-2", List.of())));
        case RECREATE_CLAIM -> claim = claim("c-2", NODE);
        case DELETE_TASK -> task = ClaimUseTest.task(TASK, TASK_UID, true);
        case EXIT -> {
          TestRuns.exit(process);
          exited = true;
        }
      }
    }

    /** What the claim sync would be told of the claim the process was started with. */
    ClaimVerdict asked(ClaimRelease release) {
      return claim.metadata().uid().equals(CLAIM.uid())
          ? release.verdict(claim)
          : release.verdict(CLAIM);
    }
  }

  private static ResourceClaim claim(String uid, String node) {
    var meta =
        ObjectMeta.named(CLAIM.name())
            .withUid(uid)
            .withOwner(new OwnerReference(Kinds.TASK.name(), TASK, TASK_UID));
    return new ResourceClaim(
        meta,
        ResourceClaimSpec.EMPTY,
        ResourceClaimStatus.EMPTY.withAllocation(new Allocation(node, List.of())));
  }

  /** Every order of every non-empty subset of the steps. */
  static List<List<Step>> orders() {
    var out = new ArrayList<List<Step>>();
    extend(new ArrayList<>(), EnumSet.allOf(Step.class), out);
    return out;
  }

  private static void extend(List<Step> prefix, EnumSet<Step> left, List<List<Step>> out) {
    for (var step : left) {
      var next = new ArrayList<>(prefix);
      next.add(step);
      out.add(List.copyOf(next));
      var rest = EnumSet.copyOf(left);
      rest.remove(step);
      if (!rest.isEmpty()) {
        extend(next, rest, out);
      }
    }
  }

  static List<String> run(Answer answer, List<Step> steps) {
    var violations = new ArrayList<String>();
    var world = new World();
    var release = world.answer(answer);
    var done = new ArrayList<Step>();
    for (var step : steps) {
      world.apply(step);
      done.add(step);
      var verdict = world.asked(release);
      if (!world.exited && verdict instanceof ClaimVerdict.Free) {
        violations.add(
            "I2: after "
                + done
                + ", claim "
                + CLAIM
                + " is free while task "
                + TASK
                + "'s process runs");
      }
      boolean unwanted = done.stream().anyMatch(s -> s != Step.EXIT);
      if (world.exited && unwanted && !(verdict instanceof ClaimVerdict.Free)) {
        violations.add(
            "held for ever: after "
                + done
                + ", claim "
                + CLAIM
                + " is "
                + ClaimUseTest.said(verdict));
      }
      if (world.exited && !unwanted && !(verdict instanceof ClaimVerdict.Wanted)) {
        violations.add(
            "released early: after "
                + done
                + ", claim "
                + CLAIM
                + " of a live task is "
                + ClaimUseTest.said(verdict));
      }
    }
    return violations;
  }

  @ParameterizedTest
  @EnumSource(Answer.class)
  void aClaimIsNeverFreeWhileAProcessStartedWithItMayRun(Answer answer) {
    var orders = orders();
    assertThat(orders).hasSize(5 + 20 + 60 + 120 + 120);
    var violations = orders.stream().flatMap(o -> run(answer, o).stream()).toList();
    switch (answer) {
      case REAL -> assertThat(violations).isEmpty();
      case CLAIM_OBJECT_ONLY ->
          assertThat(violations)
              .as("the claim object alone must be caught")
              .anyMatch(v -> v.startsWith("I2: after [DELETE_CLAIM]"))
              .anyMatch(v -> v.startsWith("I2: after [MOVE_CLAIM]"))
              .anyMatch(v -> v.startsWith("I2: after [RECREATE_CLAIM]"));
      case ON_THE_STORES_WORD ->
          assertThat(violations)
              .as("the store's word must be caught")
              .anyMatch(v -> v.startsWith("I2: after [DELETE_TASK]"));
    }
  }
}
