package dev.quartermaster.api.queue;

import static dev.quartermaster.api.queue.AdmissionState.Absent;
import static dev.quartermaster.api.queue.AdmissionState.Admitted;
import static dev.quartermaster.api.queue.AdmissionState.Evicting;
import static dev.quartermaster.api.queue.AdmissionState.Nominated;
import static dev.quartermaster.api.queue.AdmissionState.Started;
import static dev.quartermaster.api.queue.AdmissionStep.ADMIT_BY_SHARE;
import static dev.quartermaster.api.queue.AdmissionStep.ADMIT_NOMINATED;
import static dev.quartermaster.api.queue.AdmissionStep.CARRY_OVER;
import static dev.quartermaster.api.queue.AdmissionStep.OVER_QUOTA;
import static dev.quartermaster.api.queue.AdmissionStep.PREEMPT;
import static dev.quartermaster.api.queue.AdmissionStep.START_TIMEOUT;

import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The admission entry's machine, its one home: which step of the admission controller moves a
 * workload from which {@link AdmissionState} to which, and why ({@link #MOVES}), the moves
 * themselves, each a method its step builds the entry or nomination with, and what the store
 * refuses whoever writes ({@link #refusal}, judged by {@code store/registry/AdmissionMoveGuard}).
 *
 * <pre>
 * Absent --admit by share--> Admitted --start timeout (ran)--> Started
 * Admitted | Started --admit by share (grown: admitted again whole)--> Absent --> Admitted
 * Absent --preempt--> Nominated --admit the nominated--> Admitted
 * Admitted | Started --preempt, over quota (and start timeout, unstarted only)--> Evicting
 * Admitted | Started | Nominated --carry over (finished, gone)--> Absent
 * Evicting --carry over (its tasks have stopped)--> Absent
 * </pre>
 *
 * A grown workload's new admission (admitted again whole at its new size) takes its old one's
 * place: an entry of another uid or another admission time is another admission, its old one
 * released and the new one made ({@link #changes}). The store refuses only what breaks a promise:
 * evicting what is not admitted, taking an eviction back, unmarking a start, timing out what
 * started; a write it cannot attribute to a step (an entry written already started) it lets by.
 * Each move here refuses (409) if its step may not make it from where the workload stands, judged
 * change by change as the store judges the write ({@link #changes}).
 */
public final class AdmissionTransitions {
  private AdmissionTransitions() {}

  /** Every move a step makes; staying in a state (a scale-down, a resize) is no move. */
  public static final List<AdmissionMove> MOVES =
      List.of(
          new AdmissionMove(
              CARRY_OVER,
              Admitted,
              Absent,
              "released: its job is over, or its workload is gone, re-created, being deleted or"
                  + " moved, or its queue is gone"),
          new AdmissionMove(CARRY_OVER, Started, Absent, "released, for the same reasons"),
          new AdmissionMove(CARRY_OVER, Evicting, Absent, "released: none of its tasks is left"),
          new AdmissionMove(
              CARRY_OVER,
              Nominated,
              Absent,
              "its workload is gone, re-created, being deleted, moved or finished"),
          new AdmissionMove(
              ADMIT_NOMINATED,
              Nominated,
              Admitted,
              "its victims' quota came back: taken before any other, it keeps them as preempted"),
          new AdmissionMove(
              ADMIT_BY_SHARE,
              Absent,
              Admitted,
              "it fits, in its queue's turn (the lowest weighted dominant share first)"),
          new AdmissionMove(
              ADMIT_BY_SHARE,
              Admitted,
              Absent,
              "grown: its old admission released, its new one (whole, at its new size) in its"
                  + " place"),
          new AdmissionMove(ADMIT_BY_SHARE, Started, Absent, "the same, whether or not it started"),
          new AdmissionMove(
              PREEMPT, Absent, Nominated, "it does not fit, and chose victims that let it in"),
          new AdmissionMove(
              PREEMPT,
              Nominated,
              Nominated,
              "its victims stopped and it still does not fit: it chooses more"),
          new AdmissionMove(
              PREEMPT, Admitted, Evicting, "a rightful victim (RightfulEviction) of a preemptor"),
          new AdmissionMove(PREEMPT, Started, Evicting, "the same, whether or not it started"),
          new AdmissionMove(START_TIMEOUT, Admitted, Started, "every task it needs ran"),
          new AdmissionMove(
              START_TIMEOUT,
              Admitted,
              Evicting,
              "its tasks did not all run in time after admission"),
          new AdmissionMove(
              OVER_QUOTA,
              Admitted,
              Evicting,
              "its queue, set to overQuota: Evict, uses more than it may hold"),
          new AdmissionMove(OVER_QUOTA, Started, Evicting, "the same, whether or not it started"));

  /** One change of a workload's state in a ledger write. */
  public record Change(AdmissionState from, AdmissionState to) {}

  /** Whether {@code step} may move a workload from {@code from} to {@code to}. */
  public static boolean allowed(AdmissionStep step, AdmissionState from, AdmissionState to) {
    return MOVES.stream().anyMatch(m -> m.step() == step && m.from() == from && m.to() == to);
  }

  /**
   * The rule that refuses {@code from → to} whoever writes it, {@code reason}: the eviction's when
   * {@code to} is {@link AdmissionState#Evicting}; empty where the store lets it by.
   */
  public static Optional<AdmissionRule> refusal(
      AdmissionState from, AdmissionState to, Optional<EvictionReason> reason) {
    if (to == Evicting) {
      if (from == Absent || from == Nominated) {
        return Optional.of(AdmissionRule.ADMITTED_FIRST);
      }
      boolean timedOut = reason.filter(r -> r == EvictionReason.StartTimeout).isPresent();
      return from == Started && timedOut
          ? Optional.of(AdmissionRule.UNSTARTED_ONLY)
          : Optional.empty();
    }
    if (from == Evicting && (to == Admitted || to == Started)) {
      return Optional.of(AdmissionRule.NEVER_TAKEN_BACK);
    }
    return from == Started && to == Admitted
        ? Optional.of(AdmissionRule.STARTED_STAYS)
        : Optional.empty();
  }

  /**
   * The changes a ledger write makes of one workload's place, {@code was} and {@code now} its entry
   * and nomination before and after: one, or two where a new admission (another uid or admission
   * time) takes an entry's place — the old released, the new made. An evicting entry is left only
   * by its release: one written over with another eviction, or another workload's, counts as its
   * eviction taken back.
   */
  public static List<Change> changes(
      Optional<Admitted> was,
      Optional<Nomination> wasNominated,
      Optional<Admitted> now,
      Optional<Nomination> nowNominated) {
    var from = AdmissionState.of(was, wasNominated);
    var to = AdmissionState.of(now, nowNominated);
    if (was.isPresent() && now.isPresent()) {
      var a = was.get();
      var b = now.get();
      if (a.evicting()) {
        boolean same = a.uid().equals(b.uid()) && a.eviction().equals(b.eviction());
        return List.of(new Change(Evicting, same ? Evicting : Admitted));
      }
      if (!a.uid().equals(b.uid()) || !a.at().equals(b.at())) {
        return List.of(new Change(from, Absent), new Change(Absent, to));
      }
    }
    return List.of(new Change(from, to));
  }

  /** Carry over: {@code a} released (see {@link AdmissionStep#CARRY_OVER}): no entry is left. */
  public static Optional<Admitted> released(Admitted a) {
    check(CARRY_OVER, Optional.of(a), Optional.empty(), Optional.empty(), Optional.empty());
    return Optional.empty();
  }

  /** Carry over: {@code n} withdrawn, its workload no longer waiting as it was: none is left. */
  public static Optional<Nomination> withdrawn(Nomination n) {
    check(CARRY_OVER, Optional.empty(), Optional.of(n), Optional.empty(), Optional.empty());
    return Optional.empty();
  }

  /**
   * Admit the nominated: {@code n}'s workload admitted as {@code admission} (made now, evicting
   * nobody, not started), keeping whom it evicted (the anti-cycle rule, {@link
   * Admitted#preempted}).
   */
  public static Admitted admittedNominated(Nomination n, Admitted admission) {
    var a = admission.withPreempted(n.victims());
    check(ADMIT_NOMINATED, Optional.empty(), Optional.of(n), Optional.of(a), Optional.empty());
    return a;
  }

  /**
   * Admit by share: a waiting workload admitted as {@code admission} (made now); a grown one's
   * ({@code before}, its old admission) takes its place and keeps whom it evicted: forgetting would
   * let them evict it back. A nominated one ({@code nominated}) is not this step's to admit.
   */
  public static Admitted admittedByShare(
      Optional<Admitted> before, Optional<Nomination> nominated, Admitted admission) {
    var a = admission.withPreempted(before.map(b -> b.preempted()).orElse(List.of()));
    check(ADMIT_BY_SHARE, before, nominated, Optional.of(a), nominated);
    return a;
  }

  /**
   * Preempt: a workload that does not fit nominated as {@code chosen} (its victims those chosen
   * now), after those it chose before ({@code was}, its victims still stopping) as one nomination.
   */
  public static Nomination nominated(Optional<Nomination> was, Nomination chosen) {
    var victims = new ArrayList<String>();
    was.ifPresent(n -> victims.addAll(n.victims()));
    victims.addAll(chosen.victims());
    var n = new Nomination(chosen.uid(), chosen.queue(), chosen.priority(), victims, chosen.at());
    check(PREEMPT, Optional.empty(), was, Optional.empty(), Optional.of(n));
    return n;
  }

  /** Preempt: {@code victim} chosen by a preemptor, {@code e} naming it (Preempted, Reclaimed). */
  public static Admitted preempted(Admitted victim, Eviction e) {
    return evicted(PREEMPT, victim, e);
  }

  /** Start timeout: every task {@code a}'s workload needs ran under it. */
  public static Admitted started(Admitted a) {
    var next = a.markStarted();
    check(START_TIMEOUT, Optional.of(a), Optional.empty(), Optional.of(next), Optional.empty());
    return next;
  }

  /** Start timeout: {@code a}'s tasks did not all run in time; evicted {@code at}, by nobody. */
  public static Admitted timedOut(Admitted a, Instant at) {
    return evicted(START_TIMEOUT, a, new Eviction("", "", EvictionReason.StartTimeout, at));
  }

  /** Over quota: {@code a}'s queue holds more than it may; evicted {@code at}, by nobody. */
  public static Admitted overQuota(Admitted a, Instant at) {
    return evicted(OVER_QUOTA, a, new Eviction("", "", EvictionReason.OverQuota, at));
  }

  private static Admitted evicted(AdmissionStep step, Admitted a, Eviction e) {
    if (AdmissionStep.evicting(e.reason()) != step) {
      throw new IllegalArgumentException(step.text() + " does not evict for " + e.reason());
    }
    var next = a.evictedBy(e);
    check(step, Optional.of(a), Optional.empty(), Optional.of(next), Optional.empty());
    return next;
  }

  /**
   * Refuses (409) a change of a workload's place that {@code step} may not make, each change as the
   * store judges it; staying in a state is no move (a grown workload admitted again at the same
   * instant is its admission resized).
   */
  private static void check(
      AdmissionStep step,
      Optional<Admitted> was,
      Optional<Nomination> wasNominated,
      Optional<Admitted> now,
      Optional<Nomination> nowNominated) {
    var reason = now.flatMap(a -> a.eviction()).map(Eviction::reason);
    for (var c : changes(was, wasNominated, now, nowNominated)) {
      if (c.from() != c.to() && !allowed(step, c.from(), c.to())) {
        var rule =
            refusal(c.from(), c.to(), reason)
                .map(AdmissionRule::text)
                .orElse("not a move of " + step.text());
        throw new ApiException(
            Reason.Conflict,
            c.from() + " → " + c.to() + " by " + step.text() + " refused: " + rule);
      }
    }
  }
}
