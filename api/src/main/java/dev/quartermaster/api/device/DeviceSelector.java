package dev.quartermaster.api.device;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

/**
 * A condition on one device attribute, e.g. {@code memory Gte [80000000000]} or {@code model In
 * [A100, H100]}.
 */
public record DeviceSelector(String attribute, Operator operator, List<String> values) {

  public enum Operator {
    In,
    NotIn,
    Exists,
    DoesNotExist,
    /** Numeric: the attribute is at least the single value. */
    Gte,
    /** Numeric: the attribute is at most the single value. */
    Lte
  }

  public DeviceSelector {
    attribute = attribute == null ? "" : attribute;
    operator = operator == null ? Operator.Exists : operator;
    values = values == null ? List.of() : List.copyOf(values);
  }

  /** Whether a device with {@code attributes} satisfies this selector. */
  public boolean matches(Map<String, String> attributes) {
    var value = attributes.get(attribute);
    return switch (operator) {
      case Exists -> value != null;
      case DoesNotExist -> value == null;
      case In -> value != null && values.contains(value);
      case NotIn -> value == null || !values.contains(value);
      case Gte -> compare(value).map(c -> c >= 0).orElse(false);
      case Lte -> compare(value).map(c -> c <= 0).orElse(false);
    };
  }

  // A missing or non-numeric attribute satisfies no numeric bound.
  private java.util.Optional<Integer> compare(String value) {
    if (value == null || values.size() != 1) {
      return java.util.Optional.empty();
    }
    try {
      return java.util.Optional.of(
          new BigDecimal(value).compareTo(new BigDecimal(values.getFirst())));
    } catch (NumberFormatException e) {
      return java.util.Optional.empty();
    }
  }
}
