package dev.quartermaster.bench.partitions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.quartermaster.store.etcd.EtcdProcesses;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Issue 49's harness, short, in the test suite: the lab (3 etcd members, 2 servers, 3 agents with
 * their CSI plugins, each in its own network namespace) runs one fault schedule, and nothing
 * acknowledged is lost, no read contradicts an acknowledged write, no promise breaks, and
 * everything converges after the heal. The long run is {@code ./qm bench partitions}. Without root,
 * {@code ip}, {@code iptables}, {@code tc} or etcd it skips saying what is missing; under {@code
 * CI=true} it fails.
 */
class PartitionsSmokeTest {
  /**
   * The leading server's link slowed to 1 KB/s for 18 s just after two creates, an agent cut off
   * past the node grace, fenced by the operator and unfenced after the heal, another flapping, a
   * third with its packets to the servers dropped.
   */
  static final long SEED = Long.getLong("qm.test.partitionSeed", 48);

  @Test
  void oneFaultScheduleLosesNothingAndBreaksNoPromise() throws Exception {
    var missing = Harness.unavailable();
    var etcd = EtcdProcesses.binary();
    var why = missing.orElse(etcd.isEmpty() ? EtcdProcesses.HOW_TO_INSTALL : "");
    if (!why.isEmpty() && "true".equals(System.getenv("CI"))) {
      throw new AssertionError("CI=true and the partitions lab cannot run: " + why);
    }
    assumeTrue(why.isEmpty(), why);
    var qm = Path.of("..", "qm").toAbsolutePath().normalize();
    var dir = Path.of("target", "partitions-smoke").toAbsolutePath();
    Files.createDirectories(dir);
    var results = Harness.run(dir, qm, etcd.get(), Optional.empty(), SEED, 1, System.out);
    assertThat(results).hasSize(1);
    var r = results.getFirst();
    var history = dir.resolve("history-" + SEED + ".log");
    assertThat(r.lost()).as("acknowledged writes lost; history in %s", history).isEmpty();
    assertThat(r.anomalies()).as("reads against acknowledged writes; %s", history).isEmpty();
    assertThat(r.violations()).as("promises broken; %s", history).isEmpty();
    assertThat(r.convergedInBound()).as("converged after the heal; %s", history).isTrue();
    assertThat(r.revisionsJudged()).as("the store's history was judged").isPositive();
  }
}
