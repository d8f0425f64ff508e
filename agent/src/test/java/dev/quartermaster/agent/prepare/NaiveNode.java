package dev.quartermaster.agent.prepare;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The ledger as NVIDIA's plugin first had it, kept here only to prove the incident test catches it:
 * no exclusivity check, and the domain label and helper toggled by each call (prepare adds them,
 * unprepare removes them) instead of derived from who still needs them.
 */
final class NaiveNode implements NodeUnderTest {
  private final Map<String, String> prepared = new TreeMap<>(); // claim -> device
  private final Set<String> labels = new TreeSet<>();
  private final Set<String> helpers = new TreeSet<>();

  @Override
  public boolean prepare(String claim) {
    prepared.putIfAbsent(claim, IncidentScenarios.DEVICE);
    labels.add(IncidentScenarios.DOMAIN); // "already labelled" is a no-op, as in the original
    helpers.add(IncidentScenarios.DOMAIN);
    return true;
  }

  @Override
  public void unprepare(String claim) {
    if (prepared.remove(claim) != null) {
      labels.remove(IncidentScenarios.DOMAIN); // removed no matter who else still needs it
      helpers.remove(IncidentScenarios.DOMAIN);
    }
  }

  @Override
  public Set<String> membership() {
    return Set.copyOf(labels);
  }

  @Override
  public Set<String> helpers() {
    return Set.copyOf(helpers);
  }

  @Override
  public Map<String, Set<String>> holdersByDevice() {
    var out = new HashMap<String, Set<String>>();
    prepared.forEach(
        (claim, device) -> out.computeIfAbsent(device, d -> new TreeSet<>()).add(claim));
    return out;
  }

  @Override
  public void restart() {}

  @Override
  public void tick() {}
}
