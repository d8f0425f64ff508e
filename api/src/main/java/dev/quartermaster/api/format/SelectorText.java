package dev.quartermaster.api.format;

import dev.quartermaster.api.device.DeviceSelector;
import java.util.List;
import java.util.stream.Collectors;

/** Device selectors as one reads them: {@code model in (A100), memory>=80000000000, !mig}. */
public final class SelectorText {
  private SelectorText() {}

  public static String of(DeviceSelector s) {
    var values = String.join(",", s.values());
    return switch (s.operator()) {
      case In ->
          s.values().size() == 1
              ? s.attribute() + "=" + values
              : s.attribute() + " in (" + values + ")";
      case NotIn ->
          s.values().size() == 1
              ? s.attribute() + "!=" + values
              : s.attribute() + " notin (" + values + ")";
      case Exists -> s.attribute();
      case DoesNotExist -> "!" + s.attribute();
      case Gte -> s.attribute() + ">=" + values;
      case Lte -> s.attribute() + "<=" + values;
    };
  }

  public static String of(List<DeviceSelector> selectors) {
    return selectors.stream().map(SelectorText::of).collect(Collectors.joining(", "));
  }
}
