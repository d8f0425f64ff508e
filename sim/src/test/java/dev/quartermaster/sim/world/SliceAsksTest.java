package dev.quartermaster.sim.world;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.mig.MigGeometry;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A run with a MIG node ends with the slice workers placed on the H200s by the real allocator, each
 * on the smallest profile that serves its ask: by the profile's name its profile, at least 2
 * compute slices a 2g, at least 35 GB a 1g.35gb — what least-fragmenting choice gives while each
 * GPU has room for those (four GPUs, at most twelve slices asked at once).
 */
class SliceAsksTest {
  @Test
  void slicesAskedByProfileAndByAttributesAreTheSmallestThatServe() {
    Campaign.quiet();
    // Seed 1: its MIG node is not fenced by the run (at seed 3 it is, and its slices go with it).
    var run = new SeedRun(1, SeedRun.STEPS, Variant.REAL, line -> true, 1);
    assertThat(run.run()).isInstanceOf(SeedRun.Outcome.Passed.class);
    var devices = new HashMap<String, Device>();
    run.world().view().slices().stream()
        .flatMap(s -> s.spec().devices().stream().map(d -> Map.entry(s.spec().node(), d)))
        .forEach(e -> devices.put(e.getKey() + "/" + e.getValue().name(), e.getValue()));
    var profileByClass = new TreeMap<String, String>();
    for (var c : run.world().view().claims()) {
      var request = c.spec().requests().getFirst();
      c.status()
          .allocation()
          .filter(a -> request.deviceClassName().startsWith("mig-"))
          .filter(a -> c.metadata().name().startsWith(SliceAsks.WORKLOAD))
          .ifPresent(
              a ->
                  a.devices()
                      .forEach(
                          d ->
                              profileByClass.merge(
                                  request.deviceClassName(),
                                  devices
                                      .get(a.node() + "/" + d.device())
                                      .attributes()
                                      .get(MigGeometry.PROFILE),
                                  (x, y) -> x.equals(y) ? x : x + "," + y)));
    }
    assertThat(profileByClass)
        .containsExactlyEntriesOf(
            new TreeMap<>(
                Map.of(
                    "mig-1g.18gb", "1g.18gb",
                    "mig-compute-2", "2g.35gb",
                    "mig-memory-35gb", "1g.35gb")));
  }
}
