package dev.quartermaster.agent.mig;

import dev.quartermaster.agent.discovery.VerifiedNode;
import dev.quartermaster.api.device.mig.MigPlacement;
import java.util.List;

/**
 * A {@link MigControl} that hands every call to {@code inner}: a crash point or a test's view
 * overrides the one or two calls it changes and keeps the rest as they are.
 */
public abstract class ForwardingMig implements MigControl {
  protected final MigControl inner;

  protected ForwardingMig(MigControl inner) {
    this.inner = inner;
  }

  @Override
  public boolean enabled(int gpu) throws MigRefusedException {
    return inner.enabled(gpu);
  }

  @Override
  public void setEnabled(int gpu, boolean on) throws MigRefusedException {
    inner.setEnabled(gpu, on);
  }

  @Override
  public List<LiveInstance> instances(MigGpu gpu) throws MigRefusedException {
    return inner.instances(gpu);
  }

  @Override
  public LiveInstance create(MigGpu gpu, MigPlacement placement) throws MigRefusedException {
    return inner.create(gpu, placement);
  }

  @Override
  public void destroy(LiveInstance instance) throws MigRefusedException {
    inner.destroy(instance);
  }

  @Override
  public List<VerifiedNode> capabilityNodes(LiveInstance instance) {
    return inner.capabilityNodes(instance);
  }
}
