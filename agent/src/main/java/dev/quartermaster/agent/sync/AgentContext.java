package dev.quartermaster.agent.sync;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.core.env.Env;
import java.util.Objects;

/**
 * What every sync of one node's agent works with: the API it reads and writes through, the name of
 * its node, its clock and timers, and where its events go ({@link EventRecorder#NONE} in tests that
 * do not look at them).
 */
public record AgentContext(ApiClient api, String node, Env env, EventRecorder events) {
  public AgentContext {
    Objects.requireNonNull(api, "api");
    Objects.requireNonNull(node, "node");
    Objects.requireNonNull(env, "env");
    Objects.requireNonNull(events, "events");
  }

  /** An agent whose events go nowhere. */
  public static AgentContext withoutEvents(ApiClient api, String node, Env env) {
    return new AgentContext(api, node, env, EventRecorder.NONE);
  }
}
