package dev.quartermaster.cli.drain;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.event.EventLog;
import dev.quartermaster.api.event.EventType;
import dev.quartermaster.api.event.InvolvedObject;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.cli.CliException;
import dev.quartermaster.cli.edit.ObjectEdit;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * {@code qm node drain}: cordons the node and marks it draining, deletes its tasks (their workloads
 * create them again, elsewhere, since the node takes no new allocations), then waits until no task
 * runs there and the claims and volume claims they held are released, printing what is left
 * whenever it changes. The drain lives in the client, as kubectl's does: stopped half-way, it
 * leaves the node cordoned and marked, and running it again carries on.
 */
public final class Drainer {
  static final Duration POLL = Duration.ofMillis(500);

  private final ApiClient api;
  private final Clock clock;
  private final PrintWriter out;

  public Drainer(ApiClient api, Clock clock, PrintWriter out) {
    this.api = api;
    this.clock = clock;
    this.out = out;
  }

  /** Drains {@code node}; returns 0 once it is empty, 1 if {@code timeout} passed first. */
  public int drain(String node, Duration timeout, boolean force) throws InterruptedException {
    var started = clock.instant();
    var first = read(node);
    if (!first.standalone().isEmpty() && !force) {
      throw new CliException(
          "node/"
              + node
              + " runs tasks no workload owns, which nobody would start again elsewhere: "
              + String.join(", ", first.standalone())
              + "; --force deletes them too (nothing was changed)");
    }
    ObjectEdit.apply(
        api,
        Kinds.NODE,
        node,
        n -> {
          var labels = new HashMap<>(n.metadata().labels());
          labels.put(Node.DRAINING_LABEL, "true");
          return new Node(
              n.metadata().withLabels(labels), n.spec().withUnschedulable(true), n.status());
        });
    event(node, "Draining", "cordoned; stopping " + first.tasks().size() + " task(s)");
    say(
        "node/"
            + node
            + " cordoned and draining; stopping "
            + first.tasks().size()
            + " task(s)"
            + (first.tasks().isEmpty()
                ? ""
                : ": "
                    + String.join(
                        ", ", first.tasks().stream().map(t -> t.metadata().name()).toList())));
    Set<String> stopped = new LinkedHashSet<>();
    Set<String> claims = new LinkedHashSet<>(first.claims());
    Set<String> volumeClaims = new LinkedHashSet<>(first.volumeClaims());
    var state = first;
    var shown = "";
    while (true) {
      for (var t : state.tasks()) {
        if (!t.metadata().isDeleting()
            && (force || !state.standalone().contains(t.metadata().name()))) {
          deleteTask(t.metadata().name());
        }
        stopped.add(t.metadata().name());
      }
      claims.addAll(state.claims());
      volumeClaims.addAll(state.volumeClaims());
      if (state.empty()) {
        break;
      }
      var line = "  " + state.progress() + " (" + seconds(started) + ")";
      if (!state.progress().equals(shown)) {
        say(line);
        shown = state.progress();
      }
      if (Duration.between(started, clock.instant()).compareTo(timeout) >= 0) {
        event(
            node,
            "DrainTimedOut",
            "not drained within " + timeout.toSeconds() + "s: " + state.progress());
        say(
            "error: node/"
                + node
                + " not drained within "
                + timeout.toSeconds()
                + "s: "
                + state.progress()
                + detail(state)
                + "; it stays cordoned and draining: run the drain again to carry on, or qm node uncordon");
        return 1;
      }
      Thread.sleep(POLL.toMillis());
      state = read(node);
    }
    ObjectEdit.apply(
        api,
        Kinds.NODE,
        node,
        n -> {
          var labels = new HashMap<>(n.metadata().labels());
          labels.remove(Node.DRAINING_LABEL);
          return n.withMetadata(n.metadata().withLabels(labels));
        });
    var summary =
        stopped.size()
            + " task(s) stopped, "
            + claims.size()
            + " claim(s) and "
            + volumeClaims.size()
            + " volume claim(s) released";
    event(node, "Drained", summary + " in " + seconds(started));
    say(
        "node/"
            + node
            + " drained in "
            + seconds(started)
            + ": "
            + summary
            + "; it stays cordoned");
    for (var name : stopped) {
      api.get(Kinds.TASK, name)
          .ifPresent(
              t ->
                  say(
                      "  "
                          + name
                          + ": "
                          + t.status().phase()
                          + t.status()
                              .node()
                              .or(() -> t.spec().node())
                              .map(n -> " on " + n)
                              .orElse("")
                          + (t.status().reason().isEmpty()
                              ? ""
                              : " (" + t.status().reason() + ")")));
    }
    if (!state.idleClaims().isEmpty()) {
      say(
          "  still allocated here, used by no task: "
              + String.join(", ", state.idleClaims())
              + " (delete them to free their devices)");
    }
    return 0;
  }

  /** The drain's steps as the node's events, so describe node tells who emptied it and when. */
  private void event(String node, String reason, String message) {
    var log = new EventLog(api, clock::instant, (delay, task) -> {});
    log.recorder("qm-drain")
        .record(
            new InvolvedObject(Kinds.NODE.name(), node),
            reason.equals("DrainTimedOut") ? EventType.Warning : EventType.Normal,
            reason,
            message);
    log.flush(); // now: the command may end next
  }

  private DrainState read(String node) {
    api.get(Kinds.NODE, node).orElseThrow(() -> new CliException("node/" + node + " not found"));
    return DrainState.of(
        node,
        api.list(Kinds.TASK).items(),
        api.list(Kinds.RESOURCE_CLAIM).items(),
        api.list(Kinds.VOLUME).items());
  }

  private void deleteTask(String name) {
    try {
      api.delete(Kinds.TASK, name);
    } catch (ApiException e) {
      if (!e.is(Reason.NotFound)) {
        throw e;
      }
    }
  }

  private static String detail(DrainState s) {
    var parts = new ArrayList<String>();
    if (!s.tasks().isEmpty()) {
      parts.add(
          "tasks " + String.join(", ", s.tasks().stream().map(t -> t.metadata().name()).toList()));
    }
    if (!s.claims().isEmpty()) {
      parts.add("claims " + String.join(", ", s.claims()));
    }
    if (!s.volumeClaims().isEmpty()) {
      parts.add("volume claims " + String.join(", ", s.volumeClaims()));
    }
    return parts.isEmpty() ? "" : " (" + String.join("; ", parts) + ")";
  }

  private String seconds(Instant since) {
    return Duration.between(since, clock.instant()).toSeconds() + "s";
  }

  private void say(String line) {
    out.println(line);
    out.flush();
  }
}
