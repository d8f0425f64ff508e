package dev.quartermaster.control.allocator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceClassSpec;
import dev.quartermaster.api.device.DeviceClassStatus;
import dev.quartermaster.api.gang.GangTopology;
import dev.quartermaster.api.meta.ObjectMeta;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A gang's placement over a snapshot of the fleet, each outcome on its own: placed, waiting for
 * commits, never fitting, short; and the snapshot's later parts asked only when the decision gets
 * that far.
 */
class GangChoiceTest {
  private static final Map<String, DeviceClass> CLASSES =
      Map.of(
          "gpu",
          new DeviceClass(
              ObjectMeta.named("gpu"),
              new DeviceClassSpec("gpu", List.of()),
              DeviceClassStatus.EMPTY));

  /** Two members of 4 GPUs. */
  private static final List<GangFit.Member> GANG = List.of(member("m-0", 4), member("m-1", 4));

  @Test
  void placedOnTheFreeNodesWithoutLookingFurther() {
    var fleet = fleet(List.of(node("a", 8, 0)), List.of(), List.of());

    assertThat(choose(fleet)).isInstanceOf(GangPlacement.Placed.class);
    assertThat(fleet.asked).containsExactly("fewest", "free");
  }

  @Test
  void theFewestThatHoldAreEnoughWhenTheyFit() {
    var fleet = fleet(List.of(node("a", 8, 0)), List.of(), List.of());
    fleet.fewest = Optional.of(List.of(node("b", 8, 0)));

    var placed = (GangPlacement.Placed) choose(fleet);

    assertThat(placed.nodes()).containsExactly("b");
    assertThat(fleet.asked).containsExactly("fewest");
  }

  @Test
  void waitsForCommitsWhenOnlyBusyNodesMakeItFit() {
    var fleet = fleet(List.of(node("a", 8, 4)), List.of(node("b", 8, 4)), List.of());

    assertThat(choose(fleet)).isEqualTo(new GangPlacement.Busy(Set.of("b")));
  }

  @Test
  void neverFitsWhenEvenAnEmptyFleetIsTooSmall() {
    var fleet = fleet(List.of(node("a", 4, 0)), List.of(), List.of(node("a", 4, 0)));

    assertThat(choose(fleet)).isInstanceOf(GangPlacement.NeverFits.class);
  }

  @Test
  void shortSaysHowManyWouldFitNow() {
    var fleet = fleet(List.of(node("a", 8, 4)), List.of(), List.of(node("a", 8, 0)));

    assertThat(choose(fleet)).isEqualTo(new GangPlacement.Short(1, Optional.empty()));
    assertThat(fleet.asked).containsExactly("fewest", "free", "busy", "emptied");
  }

  private static GangPlacement choose(GangChoice.Fleet fleet) {
    return GangChoice.of(fleet, GANG, CLASSES, GangTopology.ANYWHERE, FitPolicy.BEST_FIT);
  }

  /** A snapshot that records which of its parts were asked for. */
  private static final class Snapshot implements GangChoice.Fleet {
    final List<String> asked = new ArrayList<>();
    final List<NodeView> free;
    final List<NodeView> busy;
    final List<NodeView> emptied;
    Optional<List<NodeView>> fewest = Optional.empty();

    Snapshot(List<NodeView> free, List<NodeView> busy, List<NodeView> emptied) {
      this.free = free;
      this.busy = busy;
      this.emptied = emptied;
    }

    @Override
    public Optional<List<NodeView>> fewestThatHold() {
      asked.add("fewest");
      return fewest;
    }

    @Override
    public List<NodeView> free() {
      asked.add("free");
      return free;
    }

    @Override
    public List<NodeView> busy() {
      asked.add("busy");
      return busy;
    }

    @Override
    public List<NodeView> emptied() {
      asked.add("emptied");
      return emptied;
    }
  }

  private static Snapshot fleet(List<NodeView> free, List<NodeView> busy, List<NodeView> emptied) {
    return new Snapshot(free, busy, emptied);
  }

  private static GangFit.Member member(String task, int gpus) {
    return new GangFit.Member(
        task,
        List.of(
            new ClaimNeed(
                task + "-gpu", List.of(new DeviceRequest("gpu", "gpu", gpus, List.of())))));
  }

  /** A ready node of {@code gpus} GPUs, the first {@code used} of them held. */
  private static NodeView node(String name, int gpus, int used) {
    var devices = new ArrayList<Device>();
    var held = new HashMap<String, String>();
    for (int i = 0; i < gpus; i++) {
      devices.add(new Device("gpu-" + i, "gpu", Map.of(), Device.Health.Healthy, ""));
      if (i < used) {
        held.put("gpu-" + i, "uid-" + name);
      }
    }
    return new NodeView(
        name,
        Optional.empty(),
        List.copyOf(devices),
        Map.copyOf(held),
        new NodeView.Sources(0, 0, List.of(), false));
  }
}
