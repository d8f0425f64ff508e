package dev.quartermaster.cli.commands;

import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.cli.CliException;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Resolves the KIND argument as a person types it: {@code node}, {@code nodes}, {@code no}, {@code
 * Node}, and the plural of a short name ({@code claims}), which people type as readily as {@code
 * nodes}.
 */
public final class KindNames {
  private KindNames() {}

  static Kind<?> resolve(String typed) {
    return lookup(typed)
        .orElseThrow(
            () ->
                new CliException(
                    "unknown kind '"
                        + typed
                        + "'; known kinds: "
                        + Kinds.ALL.stream()
                            .map(k -> k.singular() + " (" + k.shortName() + ")")
                            .collect(Collectors.joining(", "))));
  }

  /** The kind {@code typed} names; empty when none. */
  public static Optional<Kind<?>> lookup(String typed) {
    return Kinds.lookup(typed).or(() -> pluralOfShortName(typed));
  }

  private static Optional<Kind<?>> pluralOfShortName(String typed) {
    var t = typed.toLowerCase(Locale.ROOT);
    return Kinds.ALL.stream().filter(k -> t.equals(k.shortName() + "s")).findFirst();
  }
}
