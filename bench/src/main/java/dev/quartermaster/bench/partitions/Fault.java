package dev.quartermaster.bench.partitions;

import java.time.Duration;

/**
 * One fault of a schedule, held for {@code length} from its start and then healed. The set is
 * closed: the schedule draws from it, {@link FaultRunner} applies and heals each.
 */
sealed interface Fault {
  Duration length();

  /** What the report says of it. */
  String describe();

  /** An agent cut off from every server, both ways: it keeps its tasks; the servers lose it. */
  record IsolateAgent(String agent, Duration length) implements Fault {
    @Override
    public String describe() {
      return agent + " cut from the servers " + length.toSeconds() + "s";
    }
  }

  /**
   * An agent cut off past the node grace period, then fenced by the operator (who believes it dead)
   * at {@code fenceAt}, unfenced at {@code unfenceAt} (before or after the heal), the cut healed at
   * {@code length}: its tasks are replaced elsewhere while its processes may still run, and the
   * node must take new work only once they are gone.
   */
  record FenceIsolated(String agent, Duration fenceAt, Duration unfenceAt, Duration length)
      implements Fault {
    @Override
    public String describe() {
      return agent
          + " cut "
          + length.toSeconds()
          + "s, fenced at "
          + fenceAt.toSeconds()
          + "s, unfenced at "
          + unfenceAt.toSeconds()
          + "s";
    }
  }

  /** An agent's packets to the servers dropped, the servers' to it still arriving. */
  record AgentOneWay(String agent, Duration length) implements Fault {
    @Override
    public String describe() {
      return agent + "->servers dropped " + length.toSeconds() + "s";
    }
  }

  /** An agent's link cut and healed every {@code period}, over {@code length}. */
  record FlapAgent(String agent, Duration period, Duration length) implements Fault {
    @Override
    public String describe() {
      return agent + " flapping every " + period.toMillis() + "ms for " + length.toSeconds() + "s";
    }
  }

  /** An etcd member cut from the other two: a minority that must not commit. */
  record EtcdMinority(String member, Duration length) implements Fault {
    @Override
    public String describe() {
      return member + " cut from the other etcd members " + length.toSeconds() + "s";
    }
  }

  /**
   * A server that reaches only one etcd member, itself cut from the other two: the server is on the
   * minority side.
   */
  record ServerWithMinority(String server, String member, Duration length) implements Fault {
    @Override
    public String describe() {
      return server
          + " with "
          + member
          + " only, cut from etcd's majority "
          + length.toSeconds()
          + "s";
    }
  }

  /** SIGSTOP, then SIGCONT: a process frozen past its leases. */
  record Pause(String member, Duration length) implements Fault {
    @Override
    public String describe() {
      return member + " paused " + length.toSeconds() + "s";
    }
  }

  /**
   * SIGSTOP of whichever server leads the controllers when it starts (read from its {@code
   * qm_controllers_leader} metric), 100 ms after the generator's creates, so its controllers are
   * writing, then SIGCONT: between the renew deadline (10 s of the 15 s lease) and the lease, the
   * leader resumes to find its lease still its own under a new term.
   */
  record PauseLeader(Duration length) implements Fault {
    @Override
    public String describe() {
      return "the leading server paused " + length.toSeconds() + "s";
    }
  }

  /**
   * Whichever server leads the controllers when it starts, cut from every etcd member and the other
   * server: both ways, or ({@code oneWay}) only its packets to them dropped, so it still hears of
   * changes and its controllers go on deciding writes until their lease runs out. The writes it has
   * in flight wait in its connections and land when the cut heals, after the other server began a
   * newer term if the cut outlasted the 15 s lease.
   */
  record IsolateLeader(Duration length, boolean oneWay) implements Fault {
    @Override
    public String describe() {
      return "the leading server cut "
          + (oneWay ? "one way " : "")
          + "from etcd and the other server "
          + length.toSeconds()
          + "s";
    }
  }

  /**
   * The leading server's link slowed to 1 KB/s for {@code length}: what it sends queues for seconds
   * to a minute — its lease renewals arrive after the lease ran out, and the writes its controllers
   * decided while it still led after the other server began a newer term.
   */
  record SlowLeader(Duration length) implements Fault {
    @Override
    public String describe() {
      return "the leading server's link slowed to 1 KB/s for " + length.toSeconds() + "s";
    }
  }

  /** SIGKILL, and the same command started again after {@code length}. */
  record Kill(String member, Duration length) implements Fault {
    @Override
    public String describe() {
      return member + " killed -9, back after " + length.toSeconds() + "s";
    }
  }
}
