package dev.quartermaster.api.device.mig;

import static dev.quartermaster.api.device.mig.MigOccupancyTest.at;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.device.mig.MigChoice.Place;
import dev.quartermaster.api.device.mig.MigChoice.Refusal;
import dev.quartermaster.api.device.mig.MigChoice.Refused;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Where the least-fragmenting rule places, beside naive first fit. */
class LeastFragmentingTest {
  private static final MigGeometry H200 = MigGeometry.H200_141GB;

  /** A GPU named {@code name} holding 1g/… instances given as "label@start label@start". */
  private static MigOccupancy gpu(String name, String held) {
    var gpu = MigOccupancy.empty(name, H200);
    int n = 0;
    for (var h : held.split(" ")) {
      if (!h.isEmpty()) {
        var parts = h.split("@");
        gpu = gpu.with(at(parts[0], Integer.parseInt(parts[1])), "claim/" + n++);
      }
    }
    return gpu;
  }

  /** Held on gpu-0, held on gpu-1, request, expected GPU and start under ours, under first fit. */
  static Stream<Arguments> table() {
    return Stream.of(
        // an empty GPU: a 1g at 6 keeps the 4g and one 3g; first fit's 0 keeps neither the 4g
        row("", "", "1g.18gb", "gpu-0@6", "gpu-0@0"),
        // a 3g at 4 keeps the 4g's only start
        row("", "", "3g.71gb", "gpu-0@4", "gpu-0@0"),
        // 0 and 1 held: the next 1g at 2, never at 5 (which leaves #933's 0, 1, 5)
        row("1g.18gb@0 1g.18gb@1", "", "1g.18gb", "gpu-0@2", "gpu-0@2"),
        row("1g.18gb@0 1g.18gb@1 1g.18gb@2", "", "1g.18gb", "gpu-0@3", "gpu-0@3"),
        // a partly used GPU before an empty one, even the later one (equal losses: the lower start)
        row("", "1g.18gb@6", "1g.18gb", "gpu-1@4", "gpu-0@0"),
        row("", "3g.71gb@4", "2g.35gb", "gpu-1@0", "gpu-0@0"),
        // the GPU where it costs least: gpu-0 would lose its 3g, gpu-1 only a 2g
        row("4g.71gb@0", "1g.18gb@6", "1g.18gb", "gpu-1@4", "gpu-0@4"),
        // whole-GPU claims go to the whole GPU left
        row("1g.18gb@6", "", "7g.141gb", "gpu-1@0", "gpu-1@0"),
        // by attributes: the smallest profile that serves, a larger one where it alone fits
        row("3g.71gb@4", "", "at least 1/2", "gpu-0@0", "gpu-0@0"),
        row(
            "3g.71gb@4 1g.35gb@0 2g.35gb@2",
            "7g.141gb@0",
            "at least 1/1",
            "refused NO_CAPACITY",
            "refused NO_CAPACITY"),
        row("3g.71gb@4 1g.18gb@0 1g.18gb@2 1g.18gb@3", "", "at least 1/1", "gpu-0@1", "gpu-0@1"),
        row(
            "3g.71gb@4 1g.18gb@0 1g.18gb@1 1g.18gb@2 1g.18gb@3",
            "3g.71gb@0 3g.71gb@4",
            "1g.18gb",
            "refused NO_CAPACITY",
            "refused NO_CAPACITY"),
        row(
            "1g.18gb@0 1g.18gb@1 1g.18gb@5",
            "7g.141gb@0",
            "3g.71gb",
            "refused FRAGMENTED",
            "refused FRAGMENTED"),
        row("", "", "9g.1tb", "refused NO_SUCH_PROFILE", "refused NO_SUCH_PROFILE"));
  }

  private static Arguments row(String a, String b, String request, String ours, String firstFit) {
    return Arguments.of(a, b, request, ours, firstFit);
  }

  private static MigRequest request(String text) {
    if (text.startsWith("at least ")) {
      var parts = text.substring("at least ".length()).split("/");
      return new MigRequest.AtLeast(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
    }
    return new MigRequest.Profile(text);
  }

  private static String said(MigChoice choice) {
    return switch (choice) {
      case Place p -> p.gpu() + "@" + p.placement().start();
      case Refused r -> "refused " + r.refusal();
    };
  }

  @ParameterizedTest(name = "[{0}] [{1}] {2}: ours {3}, first fit {4}")
  @MethodSource("table")
  void placesWhereLargerProfilesStayPossible(
      String a, String b, String request, String ours, String firstFit) {
    var fleet = List.of(gpu("gpu-0", a), gpu("gpu-1", b));
    assertThat(said(LeastFragmenting.RULE.choose(fleet, request(request)))).isEqualTo(ours);
    assertThat(said(MigFirstFit.RULE.choose(fleet, request(request)))).isEqualTo(firstFit);
  }

  @Test
  void aFragmentedRefusalSaysWhereTheRoomIs() {
    var fleet = List.of(gpu("gpu-3", "1g.18gb@0 1g.18gb@1 1g.18gb@5"));
    var refused = (Refused) LeastFragmenting.RULE.choose(fleet, new MigRequest.Profile("3g.71gb"));
    assertThat(refused.reason())
        .isEqualTo(
            "gpu-3 has 4 compute and 5 memory slices free, but 3g.71gb starts only at {0,4}:4 and"
                + " positions 0, 1, 5 are taken");
  }

  /**
   * On any GPU, for any profile it can take: if some placement keeps the largest profile still
   * placeable, ours does too. First fit breaks it, so the check can fail.
   */
  @Test
  void neverGivesUpTheLargestProfileWhenSomePlacementKeepsIt() {
    var random = new Random(933);
    int firstFitBroke = 0;
    for (int round = 0; round < 2_000; round++) {
      var gpu = MigOccupancy.empty("gpu-0", H200);
      var all = H200.placements();
      for (int i = random.nextInt(5); i > 0; i--) {
        var p = all.get(random.nextInt(all.size()));
        if (gpu.canCreate(p) && !p.profile().equals(H200.whole().orElseThrow())) {
          gpu = gpu.with(p, "c" + i);
        }
      }
      for (var profile : H200.profiles()) {
        var request = new MigRequest.Profile(profile.label());
        var ours = LeastFragmenting.RULE.choose(List.of(gpu), request);
        if (!(ours instanceof Place placed)) {
          assertThat(gpu.creatable(profile)).isEmpty();
          continue;
        }
        int best = 0;
        for (var p : gpu.creatable(profile)) {
          best = Math.max(best, keptRank(gpu, p));
        }
        assertThat(keptRank(gpu, placed.placement()))
            .as(gpu.render() + " + " + profile.label())
            .isEqualTo(best);
        var naive = (Place) MigFirstFit.RULE.choose(List.of(gpu), request);
        firstFitBroke += keptRank(gpu, naive.placement()) < best ? 1 : 0;
      }
    }
    assertThat(firstFitBroke).isPositive();
  }

  /**
   * The larger the better: the size rank of the largest profile still placeable after {@code p}.
   */
  private static int keptRank(MigOccupancy gpu, MigPlacement p) {
    var after = gpu.with(p, "new");
    var largest = H200.largestFirst();
    for (int k = 0; k < largest.size(); k++) {
      if (!after.creatable(largest.get(k)).isEmpty()) {
        return largest.size() - k;
      }
    }
    return 0;
  }

  /** Refusals of a seeded stream on 8 H200s, by kind: {fragmented, all}. */
  private static int[] refusals(MigPlacementRule rule, long seed) {
    var random = new Random(seed);
    var fleet = new ArrayList<MigOccupancy>();
    for (int i = 0; i < 8; i++) {
      fleet.add(MigOccupancy.empty("gpu-" + i, H200));
    }
    record Leaving(long at, String gpu, MigPlacement placement) {}
    var leaving = new PriorityQueue<Leaving>((x, y) -> Long.compare(x.at, y.at));
    String[] labels = {
      "1g.18gb",
      "1g.18gb",
      "1g.18gb",
      "1g.35gb",
      "2g.35gb",
      "2g.35gb",
      "3g.71gb",
      "4g.71gb",
      "7g.141gb"
    };
    int fragmented = 0;
    int refused = 0;
    for (long t = 0; t < 4_000; t++) {
      while (!leaving.isEmpty() && leaving.peek().at <= t) {
        var l = leaving.poll();
        fleet.replaceAll(g -> g.gpu().equals(l.gpu) ? g.without(l.placement) : g);
      }
      var choice =
          rule.choose(fleet, new MigRequest.Profile(labels[random.nextInt(labels.length)]));
      int life = 1 + random.nextInt(60);
      switch (choice) {
        case Place p -> {
          var holder = "c" + t;
          fleet.replaceAll(g -> g.gpu().equals(p.gpu()) ? g.with(p.placement(), holder) : g);
          leaving.add(new Leaving(t + life, p.gpu(), p.placement()));
        }
        case Refused r -> {
          refused++;
          fragmented += r.refusal() == Refusal.FRAGMENTED ? 1 : 0;
        }
      }
    }
    return new int[] {fragmented, refused};
  }

  @Test
  void underAStreamFirstFitRefusesMoreForFragmentation() {
    for (long seed = 1; seed <= 3; seed++) {
      var ours = refusals(LeastFragmenting.RULE, seed);
      var naive = refusals(MigFirstFit.RULE, seed);
      assertThat(ours[0])
          .as(
              "seed %d: fragmented, ours %s naive %s",
              seed, Arrays.toString(ours), Arrays.toString(naive))
          .isLessThan(naive[0]);
      assertThat(ours[1]).as("seed %d: all refusals", seed).isLessThan(naive[1]);
    }
  }
}
