package dev.quartermaster.sim;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.control.cluster.Conditions;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.informer.EventHandler;
import dev.quartermaster.core.queue.Result;
import java.time.Duration;

/**
 * The node lifecycle from issue 8, kept to prove the test can tell: it judges liveness by the
 * heartbeat the node reports, so a timestamp in the future keeps a dead node Ready.
 */
final class NaiveNodeLifecycle {
  private final ControlLoop loop;

  NaiveNodeLifecycle(Env env, ApiClient api, Informers informers, Duration grace) {
    this.loop =
        new ControlLoop(
            "naive-nodes",
            env,
            1,
            name -> {
              var n = informers.nodes().cache().get(name).orElseThrow();
              var last = n.status().heartbeat().orElse(env.now());
              var silent = Duration.between(last, env.now());
              if (silent.compareTo(grace) > 0) {
                var s = n.status();
                var c =
                    Conditions.set(
                        s.conditions(),
                        Conditions.of("AgentReady", false, "HeartbeatMissed", ""),
                        env.now());
                if (!Condition.find(s.conditions(), "AgentReady")
                    .map(x -> !x.isTrue())
                    .orElse(false)) {
                  api.updateStatus(
                      n.withStatus(
                          new NodeStatus(
                              c, s.heartbeat(), s.bootId(), s.agentVersion(), s.computeDomains())));
                }
                return Result.requeueAfter(grace);
              }
              return Result.requeueAfter(grace.minus(silent).plusSeconds(1));
            });
    informers
        .nodes()
        .addHandler(EventHandler.onAddOrUpdate(n -> loop.enqueue(n.metadata().name())));
  }

  ControlLoop loop() {
    return loop;
  }
}
