package dev.quartermaster.api.allocation;

import java.util.List;

/**
 * One gang's decision, whole: for each of its {@code minMember} members the node, the claims and
 * their devices. Written as one entry of the {@link GangLedger} (one small write), it holds every
 * one of those devices for its claim; the members' record entries, claim allocations and pins
 * follow from it in bounded writes, and it is removed once they are all in.
 *
 * @param workload the gang's workload, by name and uid (a workload re-created under the name is
 *     another)
 * @param gang the gang's name in its workload ({@code *} for a workload gang)
 * @param generation the workload spec the decision was made on (the members' pins carry it)
 * @param phase {@link ReservationPhase#Proposed} when written, {@link ReservationPhase#Held} once
 *     the store has checked it against every node's record
 */
public record GangReservation(
    String workload,
    String workloadUid,
    String gang,
    long generation,
    ReservationPhase phase,
    List<ReservedMember> members) {
  public GangReservation {
    workload = workload == null ? "" : workload;
    workloadUid = workloadUid == null ? "" : workloadUid;
    gang = gang == null ? "" : gang;
    phase = phase == null ? ReservationPhase.Proposed : phase;
    members = members == null ? List.of() : List.copyOf(members);
  }

  /** The ledger key of a workload's gang: {@code <workload>/<gang>}. */
  public static String key(String workload, String gang) {
    return workload + "/" + gang;
  }

  public String key() {
    return key(workload, gang);
  }

  public GangReservation withPhase(ReservationPhase p) {
    return new GangReservation(workload, workloadUid, gang, generation, p, members);
  }

  /** Every device this reservation holds, and for which claim. */
  public List<ReservedDevice> devices() {
    return members.stream()
        .flatMap(
            m ->
                m.claims().stream()
                    .flatMap(
                        c ->
                            c.devices().stream()
                                .map(d -> new ReservedDevice(m.node(), d.device(), c.holder()))))
        .toList();
  }

  /** One device held by a reservation: its node, its name, and the claim it is for. */
  public record ReservedDevice(String node, String device, DeviceHolder holder) {}
}
