package dev.quartermaster.bench.partitions;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A fault schedule drawn from a seed: faults at offsets within {@link #WINDOW}, overlapping as they
 * fall, each healed when its length is over and all healed at the window's end. The same seed draws
 * the same schedule: a run is replayed by its seed.
 */
record Schedule(long seed, List<Timed> faults) {
  static final Duration WINDOW = Duration.ofSeconds(60);

  /** A fault and when it starts, from the schedule's start. */
  record Timed(Duration at, Fault fault) {}

  static Schedule draw(long seed) {
    return draw(seed, java.util.Optional.empty());
  }

  /**
   * A schedule with {@code first} at 10 s besides the drawn faults: what a naive variant breaks,
   * every time.
   */
  static Schedule draw(long seed, java.util.Optional<Fault> first) {
    var random = new Random(seed);
    var agents = LabCluster.agents();
    var servers = LabCluster.servers();
    var etcd = LabCluster.etcdMembers();
    int count = 2 + random.nextInt(3);
    var out = new ArrayList<Timed>();
    for (int i = 0; i < count; i++) {
      var at = Duration.ofSeconds(random.nextInt((int) WINDOW.toSeconds() - 20));
      var length = Duration.ofSeconds(5 + random.nextInt(30));
      Fault fault =
          switch (random.nextInt(13)) {
            case 0 -> new Fault.IsolateAgent(pick(agents, random), length);
            // Past the node grace period (40 s): the control plane marks the node lost.
            case 1 ->
                new Fault.IsolateAgent(
                    pick(agents, random), Duration.ofSeconds(45 + random.nextInt(30)));
            case 9, 10 -> {
              var cut = Duration.ofSeconds(55 + random.nextInt(30));
              var fenceAt = Duration.ofSeconds(45 + random.nextInt(5));
              // Unfenced while still cut off (its old processes may still run) or after the heal.
              var unfenceAt =
                  random.nextBoolean()
                      ? cut.minusSeconds(3)
                      : cut.plusSeconds(3 + random.nextInt(10));
              yield new Fault.FenceIsolated(pick(agents, random), fenceAt, unfenceAt, cut);
            }
            case 2 -> new Fault.AgentOneWay(pick(agents, random), length);
            case 3 ->
                new Fault.FlapAgent(
                    pick(agents, random), Duration.ofMillis(500 + random.nextInt(2_000)), length);
            case 4 -> new Fault.EtcdMinority(pick(etcd, random), length);
            case 5 ->
                new Fault.ServerWithMinority(pick(servers, random), pick(etcd, random), length);
            // Past the controllers' lease (15 s) as often as not.
            case 6 ->
                new Fault.Pause(pick(servers, random), Duration.ofSeconds(8 + random.nextInt(20)));
            case 7 -> new Fault.Pause(pick(agents, random), length);
            // Writes in flight when it is cut off land when the cut heals, maybe in a newer term.
            case 11 ->
                new Fault.IsolateLeader(
                    Duration.ofSeconds(8 + random.nextInt(25)), random.nextBoolean());
            case 12 -> new Fault.SlowLeader(Duration.ofSeconds(15 + random.nextInt(40)));
            default ->
                new Fault.Kill(
                    random.nextBoolean() ? pick(servers, random) : pick(agents, random),
                    Duration.ofSeconds(1 + random.nextInt(10)));
          };
      out.add(new Timed(at, fault));
    }
    first.ifPresent(f -> out.add(new Timed(Duration.ofSeconds(10), f)));
    out.sort(java.util.Comparator.comparing(Timed::at));
    return new Schedule(seed, List.copyOf(out));
  }

  private static String pick(List<String> from, Random random) {
    return from.get(random.nextInt(from.size()));
  }
}
