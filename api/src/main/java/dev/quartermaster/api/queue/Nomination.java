package dev.quartermaster.api.queue;

import java.time.Instant;
import java.util.List;

/**
 * A pending workload that chose victims and waits for them to stop. It uses no quota; it is only
 * taken first once their quota comes back, so that no other workload takes what it preempted for.
 *
 * @param uid the preemptor's uid
 * @param queue its queue
 * @param priority its priority class's value when it chose
 * @param victims the uids of the workloads it evicts; once admitted, its entry keeps them ({@link
 *     Admitted#preempted}), so none of them may evict it back
 * @param at when it chose them
 */
public record Nomination(String uid, String queue, int priority, List<String> victims, Instant at) {
  public Nomination {
    uid = uid == null ? "" : uid;
    queue = queue == null ? "" : queue;
    victims = victims == null ? List.of() : List.copyOf(victims);
    at = at == null ? Instant.EPOCH : at;
  }
}
