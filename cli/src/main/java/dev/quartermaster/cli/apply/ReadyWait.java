package dev.quartermaster.cli.apply;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kinds;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code qm apply --wait}: reads what was applied until each is {@link Readiness.Ready}, printing a
 * progress line whenever what it waits for changes, with why; a task that failed, or a workload
 * whose reason to wait only a change of the cluster can end, ends the wait at once.
 */
public final class ReadyWait {
  private static final Duration POLL = Duration.ofMillis(500);

  private final ApiClient api;
  private final Clock clock;
  private final PrintWriter out;

  public ReadyWait(ApiClient api, Clock clock, PrintWriter out) {
    this.api = api;
    this.clock = clock;
    this.out = out;
  }

  /** 0 once every object is ready; 1 if one failed or {@code timeout} passed first. */
  public int await(List<ApiObject> applied, Duration timeout) throws InterruptedException {
    var started = clock.instant();
    var shown = "";
    while (true) {
      var waiting = new ArrayList<String>();
      for (var o : applied) {
        var current = api.get(Kinds.of(o), o.metadata().name());
        if (current.isEmpty()) {
          waiting.add(o.ref() + " gone");
          continue;
        }
        switch (Readiness.of(current.get())) {
          case Readiness.Ready r -> {}
          case Readiness.Waiting w -> waiting.add(o.ref() + " " + w.state());
          case Readiness.Failed f -> {
            say("error: " + o.ref() + " failed: " + f.why());
            return 1;
          }
          case Readiness.Stuck st -> {
            say(
                "error: "
                    + o.ref()
                    + " cannot become ready until this changes (waiting will not): "
                    + st.why());
            return 1;
          }
        }
      }
      var elapsed = Duration.between(started, clock.instant());
      if (waiting.isEmpty()) {
        say("ready: " + applied.size() + " object(s) in " + elapsed.toSeconds() + "s");
        return 0;
      }
      var line =
          "waiting for "
              + waiting.size()
              + " of "
              + applied.size()
              + ": "
              + String.join("; ", waiting);
      if (!line.equals(shown)) {
        say(line + " (" + elapsed.toSeconds() + "s)");
        shown = line;
      }
      if (elapsed.compareTo(timeout) >= 0) {
        say("error: not ready within " + timeout.toSeconds() + "s: " + String.join("; ", waiting));
        return 1;
      }
      Thread.sleep(POLL.toMillis());
    }
  }

  private void say(String line) {
    out.println(line);
    out.flush();
  }
}
