package dev.quartermaster.api.validation;

import dev.quartermaster.api.device.DeviceClassSpec;
import dev.quartermaster.api.device.DeviceSelector;
import dev.quartermaster.api.device.DeviceSliceSpec;
import java.math.BigDecimal;
import java.util.List;

/** Rules for device slices, device classes and device selectors. */
final class DeviceRules {
  /**
   * Room for every device a node may publish, IMEX channels (2,048) included (as for its allocation
   * record).
   */
  static final int MAX_DEVICES = AllocationRules.MAX_DEVICES;

  private DeviceRules() {}

  static void slice(DeviceSliceSpec spec, Violations v) {
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
