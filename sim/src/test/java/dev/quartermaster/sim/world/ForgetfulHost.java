package dev.quartermaster.sim.world;

import dev.quartermaster.agent.host.NodeHost;
import dev.quartermaster.agent.host.RunRecords;
import dev.quartermaster.agent.host.TaskHost;
import dev.quartermaster.agent.runtime.TaskHandle;
import dev.quartermaster.agent.runtime.TaskRuntime;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;

/**
 * Hole 2's naive agent: it "trusts the store about leftovers" — a restarted agent stops no process
 * its predecessor started (it finds only what the store still calls Running), so a process of a
 * task that was lost and replaced during a long outage goes on using its GPU.
 */
final class ForgetfulHost extends ForwardingHost {
  ForgetfulHost(NodeHost host) {
    super(host);
  }

  @Override
  public TaskHost tasks() {
    var real = host.tasks();
    return new TaskHost() {
      @Override
      public Optional<TaskRuntime> runtime(String name) {
        return real.runtime(name);
      }

      @Override
      public RunRecords records() {
        var records = real.records();
        return new RunRecords() {
          @Override
          public void started(String task, String uid, TaskHandle handle) throws IOException {
            records.started(task, uid, handle);
          }

          @Override
          public void remove(String task) {
            records.remove(task);
          }

          @Override
          public Map<String, Leftover> stopAll() {
            return Map.of(); // the naive part: leftovers are left running
          }
        };
      }
    };
  }
}
