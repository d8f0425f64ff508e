package dev.quartermaster.sim.world;

import dev.quartermaster.api.client.FencingClient;
import dev.quartermaster.store.StoreEvent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * TERM, judged at each commit: every controller write lands under the term it was decided in. A
 * fenced write puts the revision of the fence key it was fenced by beside its changes ({@link
 * FencingClient#stampKey}); a commit whose stamp names a fence revision other than the fence key's
 * revision at that commit is a write of an ended term that landed — what a leader paused, or cut
 * off with writes in flight, does once a newer leader has begun, unless the store fences it.
 */
final class TermStamps {
  /** The revision each key outside the registry (the fence keys among them) was last put at. */
  private final Map<String, Long> revisions = new HashMap<>();

  private final List<String> found = new ArrayList<>();

  void committed(long revision, List<StoreEvent> changes) {
    for (var e : changes) {
      var key = e.kv().key();
      if (key.startsWith("/registry/")) {
        continue;
      }
      if (key.endsWith(FencingClient.STAMP_SUFFIX)) {
        judge(revision, key, e);
      } else if (e.type() == StoreEvent.Type.DELETE) {
        revisions.remove(key);
      } else {
        revisions.put(key, e.kv().modRevision());
      }
    }
  }

  private void judge(long revision, String stampKey, StoreEvent e) {
    if (e.type() == StoreEvent.Type.DELETE) {
      return;
    }
    var fenceKey = stampKey.substring(0, stampKey.length() - FencingClient.STAMP_SUFFIX.length());
    var now = revisions.get(fenceKey);
    long decided = Long.parseLong(new String(e.kv().value(), StandardCharsets.UTF_8).strip());
    if (now != null && now != decided) {
      found.add(
          "TERM: a write decided under the term that began at revision "
              + decided
              + " of "
              + fenceKey
              + " committed at revision "
              + revision
              + ", after "
              + (now > decided ? "a newer term began at revision " : "the fence moved to ")
              + now);
    }
  }

  /** Each write of an ended term that landed since the last call, one line each. */
  void check(List<String> out) {
    out.addAll(found);
    found.clear();
  }
}
