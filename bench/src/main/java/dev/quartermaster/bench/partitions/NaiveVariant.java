package dev.quartermaster.bench.partitions;

import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The naive designs the harness must catch in real processes ({@code
 * -Dqm.bench.partitionVariant=NAME}): which members run naive code, and the fault every schedule
 * then also has at 10 s, the one that naive design breaks under.
 */
enum NaiveVariant {
  /**
   * Controllers that keep an ended term's token (issue 43): the leader paused past its renew
   * deadline but not past its lease wins a new term its controllers are not told of.
   */
  STALE_TERM("stale-term", Members.SERVERS, new Fault.PauseLeader(Duration.ofSeconds(12))),

  /**
   * Controllers whose writes carry no fencing token (each still records its term, so TERM can judge
   * it) and do not ask, write by write, whether the lease was renewed within its deadline: they
   * stop when the elector says the lease is gone. The leader is paused past its lease while its
   * controllers are busy: what they had decided goes out when it resumes, before its elector looks.
   */
  NO_FENCING("no-fencing", Members.SERVERS, new Fault.PauseLeader(Duration.ofSeconds(22))),

  /**
   * Agents that trust the store's word over their own processes (Nomad #26831): a claim is released
   * (its device free for the next claim) once the store says its task is going, while the task's
   * process still runs its 2 s of SIGTERM handling. Every schedule also cuts an agent off past the
   * node grace, fenced by the operator and unfenced while still cut off, so the allocator gives its
   * GPUs to new claims before it is back.
   */
  STORE_WORD(
      "store-word",
      Members.AGENTS,
      new Fault.FenceIsolated(
          "n1", Duration.ofSeconds(45), Duration.ofSeconds(52), Duration.ofSeconds(60)));

  /** Which of the lab's programs a variant swaps. */
  enum Members {
    SERVERS,
    AGENTS
  }

  final String flag;
  final Members members;
  final Fault everySchedule;

  NaiveVariant(String flag, Members members, Fault everySchedule) {
    this.flag = flag;
    this.members = members;
    this.everySchedule = everySchedule;
  }

  static Optional<NaiveVariant> named(String flag) {
    return Arrays.stream(values()).filter(v -> v.flag.equals(flag)).findFirst();
  }

  /** The variants' names, for a message. */
  static String names() {
    return Arrays.stream(values()).map(v -> v.flag).collect(Collectors.joining(", "));
  }
}
