package dev.quartermaster.api.meta;

import java.util.Locale;

/**
 * A kind of object: its name in manifests ({@code ResourceClaim}), its URL plural ({@code
 * resourceclaims}) and its Java type.
 */
public record Kind<T extends ApiObject>(
    String name, String plural, String shortName, Class<T> type) {

  /** The lower-case singular used by the CLI ({@code resourceclaim}). */
  public String singular() {
    return name.toLowerCase(Locale.ROOT);
  }

  public T cast(ApiObject object) {
    return type.cast(object);
  }

  @Override
  public String toString() {
    return name;
  }
}
