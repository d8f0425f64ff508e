package dev.quartermaster.sim.world;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.core.env.Env;
import java.time.Duration;
import java.util.Optional;

/**
 * A naive helper run beside the real control plane ({@link Variant#withAlongside}): it looks at the
 * cluster every period and acts; a look the API refuses or cuts off is simply tried at the next.
 */
abstract class PeriodicHelper implements AutoCloseable {
  protected final Env env;
  protected final ApiClient api;
  private final Duration period;
  private Optional<Env.Cancellable> next = Optional.empty();

  PeriodicHelper(Env env, ApiClient api, Duration period) {
    this.env = env;
    this.api = api;
    this.period = period;
  }

  /** Starts looking now; the result stops it. */
  final AutoCloseable begin() {
    tick();
    return this;
  }

  /** One look: read what it needs and act. */
  abstract void look();

  private void tick() {
    try {
      look();
    } catch (ApiException | IllegalStateException e) {
      // cut off or refused: the next look sees again
    }
    next = Optional.of(env.schedule(period, this::tick));
  }

  @Override
  public void close() {
    next.ifPresent(Env.Cancellable::cancel);
  }

  /** Each PriorityClass's value, by name, as the store holds them now. */
  java.util.Map<String, Integer> priorities() {
    var out = new java.util.HashMap<String, Integer>();
    api.list(dev.quartermaster.api.meta.Kinds.PRIORITY_CLASS)
        .items()
        .forEach(p -> out.put(p.metadata().name(), p.spec().value()));
    return out;
  }
}
