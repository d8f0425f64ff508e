package dev.quartermaster.api.validation;

import dev.quartermaster.api.device.CounterSet;
import dev.quartermaster.api.device.DeviceClassSpec;
import dev.quartermaster.api.device.DeviceSelector;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.mig.MigGeometry;
import dev.quartermaster.api.device.mig.MigSelection;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

/** Rules for device slices, device classes and device selectors. */
final class DeviceRules {
  /**
   * Room for every device a node may publish, IMEX channels (2,048) included (as for its allocation
   * record).
   */
  static final int MAX_DEVICES = AllocationRules.MAX_DEVICES;

  /** As Kubernetes DRA: counter sets per slice, and counters per set or per consumption. */
  static final int MAX_COUNTERS = 32;

  private DeviceRules() {}

  static void slice(String name, DeviceSliceSpec spec, Violations v) {
    slice(spec, v);
    v.check(
        !spec.sharesCounters() || name.equals(spec.node()),
        "metadata.name",
        "must be spec.node ("
            + spec.node()
            + ") when the slice shares counters: the store judges a node's counters by the slice"
            + " named after it");
    var sets = counterSets(spec.sharedCounters(), v);
    for (int i = 0; i < spec.devices().size(); i++) {
      consumes("spec.devices[" + i + "].consumesCounters", spec.devices().get(i), sets, v);
    }
  }

  /** The slice's counter sets by name, their rules checked. */
  private static Map<String, CounterSet> counterSets(List<CounterSet> sets, Violations v) {
    v.check(
        sets.size() <= MAX_COUNTERS,
        "spec.sharedCounters",
        "must have at most " + MAX_COUNTERS + " entries");
    v.uniqueDnsLabels("spec.sharedCounters[*].name", sets.stream().map(CounterSet::name).toList());
    var out = new HashMap<String, CounterSet>();
    for (int i = 0; i < sets.size(); i++) {
      var set = sets.get(i);
      counters("spec.sharedCounters[" + i + "].counters", set.counters(), v);
      out.putIfAbsent(set.name(), set);
    }
    return out;
  }

  private static void consumes(
      String at,
      dev.quartermaster.api.device.Device d,
      Map<String, CounterSet> sets,
      Violations v) {
    var seen = new HashSet<String>();
    for (int j = 0; j < d.consumesCounters().size(); j++) {
      var c = d.consumesCounters().get(j);
      var cat = at + "[" + j + "]";
      var set = sets.get(c.counterSet());
      v.check(
          set != null,
          cat + ".counterSet",
          "must name a counter set of spec.sharedCounters, not '" + c.counterSet() + "'");
      v.check(
          seen.add(c.counterSet()),
          cat + ".counterSet",
          "must be unique: counter set '" + c.counterSet() + "' appears twice");
      counters(cat + ".counters", c.counters(), v);
      if (set == null) {
        continue;
      }
      c.counters()
          .forEach(
              (name, n) -> {
                var there = set.counters().get(name);
                v.check(
                    there != null,
                    cat + ".counters." + name,
                    "must be a counter of set " + set.name());
                v.check(
                    there == null || n == null || n <= there,
                    cat + ".counters." + name,
                    "must be at most the set's " + there);
              });
    }
  }

  /** Counter name → amount: 1 to {@value #MAX_COUNTERS} DNS-label names, each at least 1. */
  private static void counters(String at, Map<String, Long> counters, Violations v) {
    v.check(
        !counters.isEmpty() && counters.size() <= MAX_COUNTERS,
        at,
        "must have 1 to " + MAX_COUNTERS + " entries");
    counters.forEach(
        (name, n) -> {
          v.check(Names.isDnsLabel(name), at + "." + name, "key: " + Names.DNS_LABEL_RULE);
          v.check(n != null && n >= 1, at + "." + name, "must be at least 1");
        });
  }

  private static void slice(DeviceSliceSpec spec, Violations v) {
    v.dnsLabel("spec.node", spec.node());
    v.check(
        spec.devices().size() <= MAX_DEVICES,
        "spec.devices",
        "must have at most " + MAX_DEVICES + " entries");
    v.uniqueDnsLabels("spec.devices[*].name", spec.devices().stream().map(d -> d.name()).toList());
    for (int i = 0; i < spec.devices().size(); i++) {
      var d = spec.devices().get(i);
      var at = "spec.devices[" + i + "]";
      v.dnsLabel(at + ".class", d.deviceClass());
      d.attributes()
          .keySet()
          .forEach(
              k ->
                  v.check(
                      Names.isQualifiedName(k),
                      at + ".attributes." + k,
                      "must be a qualified name"));
    }
  }

  static void deviceClass(DeviceClassSpec spec, Violations v) {
    v.dnsLabel("spec.class", spec.deviceClass());
    selectors("spec.selectors", spec.selectors(), v);
    if (spec.deviceClass().equals(MigGeometry.DEVICE_CLASS)) {
      slices("spec.selectors", spec.selectors(), v);
    }
  }

  /** Selectors of MIG slices that some slice of a known GPU could meet. */
  static void slices(String field, List<DeviceSelector> selectors, Violations v) {
    v.check(MigSelection.canMatch(selectors), field, MigSelection.rule());
  }

  static void selectors(String field, List<DeviceSelector> selectors, Violations v) {
    for (int i = 0; i < selectors.size(); i++) {
      var s = selectors.get(i);
      var at = field + "[" + i + "]";
      v.check(
          Names.isQualifiedName(s.attribute()), at + ".attribute", "required, a qualified name");
      switch (s.operator()) {
        case In, NotIn ->
            v.check(!s.values().isEmpty(), at + ".values", "must not be empty for " + s.operator());
        case Exists, DoesNotExist ->
            v.check(s.values().isEmpty(), at + ".values", "must be empty for " + s.operator());
        case Gte, Lte ->
            v.check(
                s.values().size() == 1 && isNumber(s.values().getFirst()),
                at + ".values",
                "must be exactly one number for " + s.operator());
      }
    }
  }

  private static boolean isNumber(String s) {
    try {
      new BigDecimal(s);
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
