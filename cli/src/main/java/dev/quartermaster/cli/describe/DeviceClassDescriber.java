package dev.quartermaster.cli.describe;

import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.format.SelectorText;
import dev.quartermaster.api.meta.Kinds;
import java.util.TreeMap;

/** A device class: what it selects, and which devices in the cluster match it now. */
final class DeviceClassDescriber implements Describer<DeviceClass> {

  @Override
  public void describe(DeviceClass deviceClass, DescribeContext context, Description out) {
    var spec = deviceClass.spec();
    out.field("Class", spec.deviceClass())
        .values("Selectors", spec.selectors().stream().map(SelectorText::of).toList());
    // node → matching device names, so a user sees at once whether a claim on this class can be
    // satisfied.
    var matches = new TreeMap<String, java.util.List<String>>();
    for (var slice : context.api().list(Kinds.DEVICE_SLICE).items()) {
      for (Device d : slice.spec().devices()) {
        if (d.deviceClass().equals(spec.deviceClass())
            && spec.selectors().stream().allMatch(s -> s.matches(d.attributes()))) {
          var shown =
              d.health() == Device.Health.Healthy ? d.name() : d.name() + " (" + d.health() + ")";
          matches.computeIfAbsent(slice.spec().node(), n -> new java.util.ArrayList<>()).add(shown);
        }
      }
    }
    out.values(
        "Matching Devices",
        matches.entrySet().stream()
            .map(e -> e.getKey() + ": " + String.join(", ", e.getValue()))
            .toList());
  }
}
