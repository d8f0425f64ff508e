package dev.quartermaster.kubelet.real;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a wire record as the kubelet lived it: a claim holds its devices from its Prepared answer
 * to its Unprepared one, and a double prepare is a Prepared answer for a device another claim still
 * holds. Also counts the early prepares a plugin refused because of such a holder.
 */
record DoublePrepares(List<String> doubles, int refusedWhileHeld) {

  static DoublePrepares of(List<WireEvent> events) {
    var holder = new HashMap<String, String>(); // device -> uid
    var byUid = new HashMap<String, List<String>>();
    var doubles = new ArrayList<String>();
    int refused = 0;
    for (var event : events) {
      switch (event) {
        case WireEvent.Prepared p -> {
          for (var device : p.devices()) {
            var other = holder.get(device);
            if (other != null && !other.equals(p.uid())) {
              doubles.add(
                  p.at()
                      + ": "
                      + device
                      + " prepared for "
                      + p.name()
                      + " ("
                      + p.uid()
                      + ") while claim "
                      + other
                      + " still had it");
            }
            holder.put(device, p.uid());
          }
          byUid.put(p.uid(), p.devices());
        }
        case WireEvent.PrepareRefused r -> {
          if (heldByAnother(holder, r)) {
            refused++;
          }
        }
        case WireEvent.Unprepared u -> {
          for (var device : byUid.getOrDefault(u.uid(), List.of())) {
            holder.remove(device, u.uid());
          }
          byUid.remove(u.uid());
        }
      }
    }
    return new DoublePrepares(List.copyOf(doubles), refused);
  }

  private static boolean heldByAnother(Map<String, String> holder, WireEvent.PrepareRefused r) {
    return holder.values().stream()
        .anyMatch(uid -> !uid.equals(r.uid()) && r.error().contains(uid));
  }
}
