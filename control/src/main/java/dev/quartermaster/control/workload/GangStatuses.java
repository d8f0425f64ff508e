package dev.quartermaster.control.workload;

import dev.quartermaster.api.claim.ClaimConditions;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.gang.Gang;
import dev.quartermaster.api.gang.GangState;
import dev.quartermaster.api.gang.GangStatus;
import dev.quartermaster.api.gang.WorkloadGangs;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.workload.TaskPhase;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;

/**
 * A gang's line in its workload's status, from its groups' tasks and their claims as the caches
 * show them: a group gang's in its group's line, the workload gang's in the workload's ({@link
 * WorkloadGangs}). A pure function, so it is tested on its own.
 *
 * <ul>
 *   <li><b>Placed</b> once a live member is bound to a node or one of its claims is allocated: the
 *       allocator pins a gang's members and allocates their claims in the one transaction that
 *       places the gang, and places no member alone before that, so either signal says the gang
 *       holds devices, whichever cache shows it first.
 *   <li><b>Partial</b> once a placed gang has fewer members placed than it needs ({@link
 *       PartlyPlaced}): it lost one to a drain, a node, a crash. Never straight from waiting: a
 *       gang goes from none to whole in one transaction (G1), so a cache that shows only part of
 *       that one write is read as placed. The message says who is missing and when the gang is
 *       stopped to be placed again whole ({@link GangRecovery}).
 *   <li><b>Finished</b> once every slot's task has finished and none is to be restarted: the job is
 *       over and waits for nothing.
 *   <li><b>Waiting</b> otherwise: for its queue ({@code WaitingForAdmission}) while the workload is
 *       not admitted, or for its evicted members to stop ({@code Evicted}), neither of which is a
 *       wait for devices; else, while some group has fewer members than its share the allocator
 *       writes nothing, so this says how many of the gang's {@code minMember} exist (each group's
 *       counted up to its share); once they all exist, the reason and message are the ones the
 *       allocator wrote on the members' claims ({@code WaitingForGang: needs 4 × (4 gpu) at once
 *       ...}, or a refusal such as {@code NoSuchDeviceClass}).
 * </ul>
 *
 * {@code since} is kept while the state stays, so a wait is timed from when it began.
 */
final class GangStatuses {
  private GangStatuses() {}

  /**
   * The gang's line, judging a placed gang's members against what its queue admitted, and telling
   * when {@code recovery} stops a partly placed one.
   *
   * @param admission where its workload stands with its queue
   * @param previous the gang's status as last written
   * @param now the time a new state starts at
   */
  static GangStatus of(
      GangView view,
      GangAdmission admission,
      GangRecovery recovery,
      Optional<GangStatus> previous,
      Instant now) {
    var gang = view.gang();
    var decided = decide(view, admission);
    var wasPlaced =
        previous.map(p -> p.state() == GangState.Placed || p.state() == GangState.Partial);
    var partly =
        decided.state() == GangState.Placed && wasPlaced.orElse(false)
            ? PartlyPlaced.of(view)
            : Optional.<PartlyPlaced>empty();
    var next = partly.map(p -> partial(gang, p, recovery)).orElse(decided);
    var since =
        previous.filter(p -> p.state() == next.state()).flatMap(GangStatus::since).orElse(now);
    return new GangStatus(next.state(), next.reason(), next.message(), Optional.of(since));
  }

  private static GangStatus partial(Gang gang, PartlyPlaced p, GangRecovery recovery) {
    return new GangStatus(
        GangState.Partial,
        GangStatus.MEMBERS_MISSING,
        p.describe()
            + recovery
                .partialBound()
                .map(
                    b ->
                        "; unless they are placed beside the others within "
                            + b.toSeconds()
                            + "s, the gang is stopped and placed again as a whole")
                .orElse("")
            + " (onMemberFailure: "
            + gang.onMemberFailure()
            + ")");
  }

  private static GangStatus decide(GangView view, GangAdmission admission) {
    var gang = view.gang();
    var tasks = view.tasks();
    var workloadUid = view.workloadUid();
    int min = gang.minMember();
    var members = new HashSet<String>();
    int exist = 0;
    int replacing = 0;
    boolean finished = true;
    boolean bound = false;
    for (var group : view.spec().groups()) {
      if (!gang.has(group.name())) {
        continue;
      }
      int live = 0;
      int finishedForGood = 0;
      for (var t : tasks.getOrDefault(group.name(), List.of())) {
        if (!t.metadata().owner().map(o -> o.uid().equals(workloadUid)).orElse(false)) {
          continue;
        }
        var phase = t.status().phase();
        if (t.metadata().isDeleting()) {
          replacing++; // stopped (a gang restart, a back-off over): its successor follows
          continue;
        }
        if (phase.isFinished()) {
          if (group.restartPolicy().replaces(phase)) {
            replacing++;
          } else {
            finishedForGood++;
          }
          continue;
        }
        members.add(t.metadata().uid());
        live++;
        bound |= t.spec().node().isPresent() || phase != TaskPhase.Pending;
      }
      exist += Math.min(live, gang.shareOf(group.name()));
      finished &= finishedForGood >= group.replicas();
    }
    var memberClaims =
        view.claims().stream()
            .filter(
                c ->
                    !c.metadata().isDeleting()
                        && c.metadata().owner().map(o -> members.contains(o.uid())).orElse(false))
            .sorted(Comparator.comparing((ResourceClaim c) -> c.metadata().name()))
            .toList();
    if (bound || memberClaims.stream().anyMatch(c -> c.status().allocation().isPresent())) {
      return new GangStatus(GangState.Placed, "", "");
    }
    if (members.isEmpty() && finished) {
      return new GangStatus(GangState.Finished, "", "");
    }
    switch (admission) {
      case Waiting -> {
        return new GangStatus(
            GangState.Waiting,
            GangStatus.WAITING_FOR_ADMISSION,
            "its workload waits for its queue to admit it; no member is made before");
      }
      case Evicted -> {
        return new GangStatus(
            GangState.Waiting,
            GangStatus.EVICTED,
            "its workload was evicted: its members stop, then it waits in its queue to be admitted"
                + " and placed again whole");
      }
      case Admitted -> {}
    }
    if (exist < min) {
      // A member whose earlier task has ended or is stopping exists by name, not yet as a member:
      // say so, or "2 of 4 exist" reads wrong while all 4 tasks are listed.
      return waiting(
          exist
              + " of "
              + min
              + " members exist so far"
              + (replacing == 0
                  ? ""
                  : "; "
                      + replacing
                      + " more "
                      + (replacing == 1 ? "is" : "are")
                      + " being replaced (the earlier task of the name has ended or is stopping,"
                      + " and lets its claims go first)"));
    }
    return memberClaims.stream()
        .flatMap(
            c ->
                Condition.find(c.status().conditions(), ClaimConditions.ALLOCATED)
                    .filter(a -> !a.isTrue() && !a.reason().isEmpty())
                    .stream())
        .findFirst()
        .map(a -> new GangStatus(GangState.Waiting, a.reason(), a.message()))
        .orElseGet(
            () -> waiting("all " + min + " members exist; the allocator has not decided yet"));
  }

  private static GangStatus waiting(String message) {
    return new GangStatus(GangState.Waiting, GangStatus.WAITING_FOR_GANG, message);
  }
}
