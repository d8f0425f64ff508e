package dev.quartermaster.api.allocation;

import java.util.Optional;

/**
 * One move of a gang reservation: from {@code from} to {@code to} (empty: not in the ledger), and
 * what the store checks it against ({@code judged}).
 */
public record ReservationMove(
    Optional<ReservationPhase> from, Optional<ReservationPhase> to, String judged) {}
