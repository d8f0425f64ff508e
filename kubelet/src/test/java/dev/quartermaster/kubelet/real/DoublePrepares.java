package dev.quartermaster.kubelet.real;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a wire record as the kubelet lived it, exactly: a claim holds a device from the moment its
 * Prepared answer was sent until an unprepare of it <em>arrives</em> that is answered with success
 * (from its arrival on, the plugin may have released it: a plugin that gets the unprepare of A and
 * the prepare of B together may do the unprepare first and send its answer last). A double prepare
 * is a Prepared answer sent for a device while another claim holds it in that sense. Calls are
 * ordered by the proxy's counter, never by clock readings, which tie.
 *
 * <p>Each double comes with the record around it ({@link Flag#record()}): every call of the two
 * claims, and the calls a few steps either side, with both their times — so that a flag can be told
 * apart from the proxy's own ordering by reading it.
 *
 * <p>Also counts the early prepares a plugin refused because of such a holder.
 */
record DoublePrepares(List<Flag> flags, int refusedWhileHeld) {
  /** How many calls either side of a flagged answer its record shows. */
  static final int AROUND = 4;

  /** A double prepare: what happened, and the record around it. */
  record Flag(String summary, List<String> record) {}

  /** The flags' summaries. */
  List<String> doubles() {
    return flags.stream().map(Flag::summary).toList();
  }

  /** A point of the timeline: a Prepared answer's sending, or a successful unprepare's arrival. */
  private record Point(long seq, WireEvent event) {}

  static DoublePrepares of(List<WireEvent> events) {
    var points = new ArrayList<Point>();
    for (var e : events) {
      switch (e) {
        case WireEvent.Prepared p -> points.add(new Point(p.times().answerSeq(), p));
        case WireEvent.Unprepared u -> points.add(new Point(u.times().arrivalSeq(), u));
        case WireEvent.PrepareRefused r -> points.add(new Point(r.times().answerSeq(), r));
        case WireEvent.CallFailed f -> {}
      }
    }
    points.sort(Comparator.comparingLong(Point::seq));
    var holder = new HashMap<String, WireEvent.Prepared>(); // device -> the prepare holding it
    var byUid = new HashMap<String, List<String>>();
    // uid -> answer of an unprepare that has arrived: a prepare of that claim answered before it
    // (the two were in the plugin together) holds nothing once the unprepare is answered.
    var releasing = new HashMap<String, Long>();
    var flags = new ArrayList<Flag>();
    int refused = 0;
    for (var point : points) {
      switch (point.event()) {
        case WireEvent.Prepared p -> {
          if (releasing.getOrDefault(p.uid(), Long.MIN_VALUE) > p.times().answerSeq()) {
            continue;
          }
          for (var device : p.devices()) {
            var other = holder.get(device);
            if (other != null && !other.uid().equals(p.uid())) {
              flags.add(
                  new Flag(
                      p.at()
                          + ": "
                          + device
                          + " prepared for "
                          + p.name()
                          + " ("
                          + p.uid()
                          + ", "
                          + p.times()
                          + ") while claim "
                          + other.uid()
                          + " still had it (prepared "
                          + other.times()
                          + ", no unprepare of it had arrived)",
                      around(events, p, other.uid())));
            }
            holder.put(device, p);
          }
          byUid.put(p.uid(), p.devices());
        }
        case WireEvent.PrepareRefused r -> {
          if (heldByAnother(holder, r)) {
            refused++;
          }
        }
        case WireEvent.Unprepared u -> {
          releasing.merge(u.uid(), u.times().answerSeq(), Math::max);
          for (var device : byUid.getOrDefault(u.uid(), List.of())) {
            var held = holder.get(device);
            if (held != null && held.uid().equals(u.uid())) {
              holder.remove(device);
            }
          }
          byUid.remove(u.uid());
        }
        case WireEvent.CallFailed f -> {}
      }
    }
    return new DoublePrepares(List.copyOf(flags), refused);
  }

  /**
   * The record around {@code flagged}: every event of its claim and of {@code otherUid}, and the
   * {@link #AROUND} events either side of it, in arrival order, one line each.
   */
  static List<String> around(List<WireEvent> events, WireEvent flagged, String otherUid) {
    var byArrival = new ArrayList<>(events);
    byArrival.sort(Comparator.comparingLong(e -> e.times().arrivalSeq()));
    int at = byArrival.indexOf(flagged);
    Set<WireEvent> shown = new HashSet<>();
    for (int i = Math.max(0, at - AROUND); i <= Math.min(byArrival.size() - 1, at + AROUND); i++) {
      shown.add(byArrival.get(i));
    }
    for (var e : byArrival) {
      if (e.uid().equals(flagged.uid()) || e.uid().equals(otherUid)) {
        shown.add(e);
      }
    }
    var out = new ArrayList<String>();
    for (var e : byArrival) {
      if (shown.contains(e)) {
        out.add((e == flagged ? "> " : "  ") + describe(e));
      }
    }
    return out;
  }

  /** One line of the record: {@code #12 .. #15 Prepared claim (uid) [n/gpu-0]}. */
  static String describe(WireEvent e) {
    var t = e.times();
    var head =
        "#"
            + t.arrivalSeq()
            + " "
            + t.arrived()
            + " .. #"
            + t.answerSeq()
            + " "
            + t.answered()
            + " ";
    return head
        + switch (e) {
          case WireEvent.Prepared p -> "Prepared " + p.name() + " (" + p.uid() + ") " + p.devices();
          case WireEvent.PrepareRefused r ->
              "PrepareRefused " + r.name() + " (" + r.uid() + "): " + r.error();
          case WireEvent.Unprepared u -> "Unprepared (" + u.uid() + ")";
          case WireEvent.CallFailed f -> f.call() + " FAILED for (" + f.uid() + "): " + f.error();
        };
  }

  private static boolean heldByAnother(
      Map<String, WireEvent.Prepared> holder, WireEvent.PrepareRefused r) {
    return holder.values().stream()
        .anyMatch(p -> !p.uid().equals(r.uid()) && r.error().contains(p.uid()));
  }
}
