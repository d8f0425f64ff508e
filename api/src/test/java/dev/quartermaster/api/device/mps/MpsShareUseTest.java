package dev.quartermaster.api.device.mps;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ShareRequest;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.use.Clash;
import dev.quartermaster.api.device.use.DeviceUse;
import dev.quartermaster.api.device.use.Holders;
import dev.quartermaster.api.device.use.Holding;
import dev.quartermaster.api.device.use.Parts;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.validation.ObjectValidator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * An MPS GPU's shares as devices: their names, the request policy, and I1 generalized — the shares
 * held on a GPU never take more compute, memory or clients than it offers, and never sit beside the
 * GPU held whole — in each of the questions every layer asks ({@code isFree}, {@code clash}, {@code
 * overConsumed}). A naive judge that sees only device names is shown to miss it.
 */
class MpsShareUseTest {
  private static final long GIB = MpsShares.GIB;
  private static final Device GPU_0 =
      new Device(
          "gpu-0",
          "gpu",
          Map.of("uuid", "GPU-0", "memory", Long.toString(80 * GIB)),
          Device.Health.Healthy,
          "");
  private static final Device GPU_1 =
      new Device("gpu-1", "gpu", Map.of("uuid", "GPU-1"), Device.Health.Healthy, "");

  private static DeviceUse mps(int clients) {
    return DeviceUse.of(
        new DeviceSliceSpec("node-1", List.of(MpsShares.template(GPU_0, clients), GPU_1)));
  }

  private static String share(int pct, int gib, int k) {
    return new MpsShare("gpu-0", pct, gib, k).name();
  }

  @Test
  void aShareIsNamedForItsGpuAndSizeAndItsGpuOffersOneDevice() {
    var t = MpsShares.template(GPU_0, 4);
    assertThat(t.name()).isEqualTo("gpu-0-mps");
    assertThat(t.deviceClass()).isEqualTo("mps");
    assertThat(t.attributes())
        .containsEntry("parent", "gpu-0")
        .containsEntry("compute", "100")
        .containsEntry("clients", "4")
        .containsEntry("sharing", "mps")
        .containsEntry("uuid", "GPU-0");
    assertThat(MpsShares.capacity(t)).isEqualTo(new MpsCapacity(100, 80, 4));
    assertThat(share(50, 20, 0)).isEqualTo("gpu-0-mps-50pct-20gib-0");
    assertThat(MpsShares.parse("gpu-0-mps-50pct-20gib-3"))
        .contains(new MpsShare("gpu-0", 50, 20, 3));
    assertThat(MpsShares.parse("gpu-0-mps")).isEmpty();
    assertThat(MpsShares.parse("gpu-0-mps-50pct-x-3")).isEmpty();
    assertThat(Parts.parentByName("gpu-0-mps-50pct-20gib-3")).contains("gpu-0");
    assertThat(Parts.parentByName("gpu-0-mps")).contains("gpu-0");
  }

  @ParameterizedTest(name = "held [{0}] by others, {1}: free {2}")
  @CsvSource({
    "'', gpu-0-mps-50pct-20gib-0, true",
    "gpu-0-mps-50pct-20gib-0, gpu-0-mps-50pct-20gib-0, false",
    "gpu-0-mps-50pct-20gib-0, gpu-0-mps-50pct-20gib-1, true",
    "gpu-0-mps-50pct-20gib-0, gpu-0-mps-55pct-20gib-0, false", // 105 % of compute
    "gpu-0-mps-50pct-70gib-0, gpu-0-mps-10pct-11gib-0, false", // 81 GiB of 80
    "gpu-0-mps-50pct-70gib-0, gpu-0-mps-10pct-10gib-0, true", // 80 GiB of 80: all of it
    "gpu-0-mps-25pct-1gib-0 gpu-0-mps-25pct-1gib-1 gpu-0-mps-25pct-1gib-2, gpu-0-mps-5pct-1gib-0, true",
    "gpu-0-mps-25pct-1gib-0 gpu-0-mps-25pct-1gib-1 gpu-0-mps-25pct-1gib-2 gpu-0-mps-5pct-1gib-0,"
        + " gpu-0-mps-5pct-1gib-1, false", // a fifth client of four
    "gpu-0, gpu-0-mps-5pct-1gib-0, false", // the GPU held whole
    "gpu-0-mps-5pct-1gib-0, gpu-0, false", // and the GPU whole beside a share
    "gpu-1, gpu-0-mps-5pct-1gib-0, true",
    "'', gpu-0-mps, false", // the GPU's device is never held itself
  })
  void sharesSumToNoMoreThanTheGpu(String held, String asked, boolean free) {
    var use = mps(4);
    var holders = new TreeMap<String, String>();
    for (var d : held.split(" ")) {
      if (!d.isEmpty()) {
        holders.put(d, "claim-" + d);
      }
    }
    assertThat(use.isFree(asked, Holders.of(holders))).isEqualTo(free);
    assertThat(use.clash(asked, "new", Holders.of(holders)).isEmpty()).isEqualTo(free);
    var all = new ArrayList<Holding<String>>();
    holders.forEach((d, h) -> all.add(new Holding<>(d, h)));
    all.add(new Holding<>(asked, "new"));
    var judged = use.overConsumed(all).or(() -> use.partWithWhole(byDevice(all)));
    assertThat(judged.isEmpty()).as("overConsumed of %s", all).isEqualTo(free);
  }

  @Test
  void aClashSaysWhichCounterAndWhoHoldsTheOtherShare() {
    var use = mps(4);
    var clash =
        use.clash(share(60, 10, 0), "b", Holders.of(Map.of(share(50, 10, 0), "a"))).orElseThrow();
    assertThat(clash.describe(" on node node-1"))
        .isEqualTo(
            "device gpu-0-mps-60pct-10gib-0 on node node-1 shares counter"
                + " gpu-0-mps/compute-percent: 110 of 100 with device gpu-0-mps-50pct-10gib-0,"
                + " held by a");
  }

  @Test
  void oneClaimHoldingTheSameShareAgainCountsOnce() {
    var use = mps(4);
    var s = share(60, 10, 0);
    assertThat(use.clash(s, "a", Holders.of(Map.of(s, "a")))).isEmpty();
  }

  @Test
  void sharesOfAGpuNoLongerPublishedStillCountTheirCompute() {
    // The store refuses a change of mode under shares; should shares be left, their names count.
    var use = DeviceUse.of(new DeviceSliceSpec("node-1", List.of(GPU_0, GPU_1)));
    var held = List.of(new Holding<>(share(60, 1, 0), "a"), new Holding<>(share(60, 1, 1), "b"));
    assertThat(use.overConsumed(held)).isPresent();
    assertThat(use.overConsumed(held.subList(0, 1))).isEmpty();
  }

  /** A judge that knows only device names: two claims never hold one name. */
  private static Optional<String> naiveJudge(List<Holding<String>> held) {
    var seen = new TreeMap<String, String>();
    for (var h : held) {
      var was = seen.putIfAbsent(h.device(), h.holder());
      if (was != null && !was.equals(h.holder())) {
        return Optional.of(h.device());
      }
    }
    return Optional.empty();
  }

  @Test
  void aNaiveJudgeOfNamesLetsSharesPassTheGpuAndDeviceUseDoesNot() {
    var held =
        List.of(
            new Holding<>(share(60, 40, 0), "a"),
            new Holding<>(share(60, 40, 1), "b")); // 120 % and 80 GiB
    assertThat(naiveJudge(held)).isEmpty();
    assertThat(mps(4).overConsumed(held)).map(Clash::describe).isPresent();
  }

  @ParameterizedTest(name = "share {0} {1}: {2}")
  @CsvSource({
    "50, 20Gi, ''",
    "5, 1Gi, ''",
    "100, 80Gi, ''",
    "0, 1Gi, spec.requests[0].share.compute",
    "7, 1Gi, spec.requests[0].share.compute",
    "105, 1Gi, spec.requests[0].share.compute",
    "50, 20G, spec.requests[0].share.memory",
    "50, 0Gi, spec.requests[0].share.memory",
    "50, '', spec.requests[0].share.memory",
  })
  void theRequestPolicyIsCheckedOnCreate(int compute, String memory, String field) {
    var claim =
        new ResourceClaim(
            ObjectMeta.named("c"),
            new ResourceClaimSpec(
                List.of(
                    new DeviceRequest(
                        "s", "mps", 1, List.of(), Optional.of(new ShareRequest(compute, memory)))),
                Optional.empty()),
            null);
    var fields = ObjectValidator.validateCreate(claim).stream().map(v -> v.field()).toList();
    if (field.isEmpty()) {
      assertThat(fields).isEmpty();
    } else {
      assertThat(fields).containsExactly(field);
    }
  }

  @Test
  void aShareIsWrittenAsTheUserWritesIt() {
    var yaml =
        """
        kind: ResourceClaim
        metadata: {name: c}
        spec:
          requests:
            - {name: s, deviceClassName: mps, count: 1, share: {compute: 50, memory: 20Gi}}
            - {name: w, deviceClassName: gpu, count: 1}
        """;
    var claim = (ResourceClaim) dev.quartermaster.api.codec.ObjectCodec.fromYaml(yaml).getFirst();
    assertThat(claim.spec().requests().get(0).share()).contains(new ShareRequest(50, "20Gi"));
    assertThat(claim.spec().requests().get(1).share()).isEmpty();
    var back =
        dev.quartermaster.api.codec.ObjectCodec.fromJson(
            dev.quartermaster.api.codec.ObjectCodec.toJson(claim));
    assertThat(back).isEqualTo(claim);
  }

  private static Map<String, String> byDevice(List<Holding<String>> held) {
    var out = new TreeMap<String, String>();
    held.forEach(h -> out.putIfAbsent(h.device(), h.holder()));
    return out;
  }
}
