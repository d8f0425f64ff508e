package dev.quartermaster.cli.commands;

import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import java.util.Iterator;

/**
 * The KIND argument's completions and the list its help shows: every kind's plural, from {@link
 * Kinds#ALL}, so a new kind is completed without anyone remembering to add it.
 */
public final class KindCandidates implements Iterable<String> {
  @Override
  public Iterator<String> iterator() {
    return Kinds.ALL.stream().map(Kind::plural).iterator();
  }
}
