package dev.quartermaster.api.device.mig;

import java.util.Optional;

/**
 * A GPU instance that exists on a GPU, and who holds it. Under dynamic MIG an instance exists only
 * while a claim holds it; under a static layout it exists free until one does.
 *
 * @param heldBy the holder as an operator reads it ({@code claim/a}); empty: free
 */
public record MigInstance(MigPlacement placement, Optional<String> heldBy) {
  public static MigInstance held(MigPlacement placement, String holder) {
    return new MigInstance(placement, Optional.of(holder));
  }

  public static MigInstance free(MigPlacement placement) {
    return new MigInstance(placement, Optional.empty());
  }

  public boolean isHeld() {
    return heldBy.isPresent();
  }
}
