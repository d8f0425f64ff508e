package dev.quartermaster.sim.node;

import dev.quartermaster.agent.cdi.InMemoryClaimSpecs;
import dev.quartermaster.agent.discovery.ControlNode;
import dev.quartermaster.agent.discovery.VerifiedNode;
import dev.quartermaster.agent.host.DeviceHolder;
import dev.quartermaster.agent.host.HolderScan;
import dev.quartermaster.agent.host.RunRecords;
import dev.quartermaster.agent.host.TaskHost;
import dev.quartermaster.agent.runtime.DeviceCheck;
import dev.quartermaster.agent.runtime.RuntimeTask;
import dev.quartermaster.agent.runtime.TaskHandle;
import dev.quartermaster.agent.runtime.TaskLaunch;
import dev.quartermaster.agent.runtime.TaskResult;
import dev.quartermaster.agent.runtime.TaskRuntime;
import dev.quartermaster.agent.runtime.TaskState;
import dev.quartermaster.core.env.Env;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A node's processes: every runtime name runs a simulated process that lives in this table, not in
 * the agent, so it outlives an agent that crashes (as a real process reparented to init does) until
 * something kills it. The command says how it ends: {@code fail} exits 1 and {@code done} exits 0
 * after {@link #RUN_TIME}; anything else runs until killed. The device check resolves the task's
 * CDI names against the node's specs <em>at start</em> and opens the GPU and control nodes as they
 * are at that moment.
 */
public final class SimProcesses implements TaskHost {
  /** How long a {@code fail} or {@code done} process runs. */
  public static final Duration RUN_TIME = Duration.ofSeconds(5);

  private static final int KILLED = 128 + 9;

  /**
   * One process: which task started it, which devices (claim uid → device) it opened, the device
   * nodes it opened (container paths), and the volume paths it was given ({@code QM_VOLUME_*}).
   */
  public record Proc(
      long pid,
      String task,
      Map<String, List<String>> devices,
      List<String> opened,
      List<String> volumePaths,
      RuntimeTask handle) {
    public boolean alive() {
      return !(handle.state() instanceof TaskState.Finished);
    }
  }

  private final Env env;
  private final InMemoryClaimSpecs specs;
  private final SimDeviceTree tree;
  private final Map<Long, Proc> procs = new TreeMap<>();
  private final Map<String, Record> records = new TreeMap<>();
  private long nextPid = 100;

  private record Record(String uid, long pid) {}

  public SimProcesses(Env env, InMemoryClaimSpecs specs, SimDeviceTree tree) {
    this.env = env;
    this.specs = specs;
    this.tree = tree;
  }

  /** The processes alive now. */
  public synchronized List<Proc> alive() {
    return procs.values().stream().filter(Proc::alive).toList();
  }

  @Override
  public Optional<TaskRuntime> runtime(String name) {
    return Optional.of(this::start);
  }

  @Override
  public RunRecords records() {
    return new RunRecords() {
      @Override
      public void started(String task, String uid, TaskHandle handle) {
        synchronized (SimProcesses.this) {
          var pid =
              procs.values().stream()
                  .filter(p -> p.handle() == handle)
                  .mapToLong(Proc::pid)
                  .findFirst()
                  .orElse(-1);
          records.put(task, new Record(uid, pid));
        }
      }

      @Override
      public void remove(String task) {
        synchronized (SimProcesses.this) {
          records.remove(task);
        }
      }

      @Override
      public Map<String, Leftover> stopAll() {
        var out = new TreeMap<String, Leftover>();
        List<Map.Entry<String, Record>> all;
        synchronized (SimProcesses.this) {
          all = List.copyOf(records.entrySet());
          records.clear();
        }
        for (var e : all) {
          var proc = procOf(e.getValue().pid());
          String found = "its process " + e.getValue().pid() + " was gone";
          if (proc.isPresent() && proc.get().alive()) {
            proc.get().handle().kill();
            found = "its process " + e.getValue().pid() + " was still running and was killed";
          }
          out.put(e.getKey(), new Leftover(e.getValue().uid(), found));
        }
        return out;
      }
    };
  }

  /**
   * The live processes that opened any of {@code devices} (by name), as the node's {@code /proc}
   * would show them: a process outlives the claim it was started for until something kills it.
   */
  public synchronized HolderScan holders(Map<String, VerifiedNode> devices) {
    var out = new ArrayList<DeviceHolder>();
    for (var proc : procs.values()) {
      if (!proc.alive()) {
        continue;
      }
      proc.devices().values().stream()
          .flatMap(List::stream)
          .filter(devices::containsKey)
          .forEach(
              d -> out.add(new DeviceHolder(d, proc.pid(), proc.task(), devices.get(d).path())));
    }
    return new HolderScan(out, List.of());
  }

  /** Whether a live process opened any of {@code nodes} (the MIG driver's "in use"). */
  public synchronized boolean opens(List<VerifiedNode> nodes) {
    return procs.values().stream()
        .filter(Proc::alive)
        .anyMatch(p -> nodes.stream().anyMatch(n -> p.opened().contains(n.path())));
  }

  private synchronized Optional<Proc> procOf(long pid) {
    return Optional.ofNullable(procs.get(pid));
  }

  private TaskHandle start(TaskLaunch launch) {
    var handle = new RuntimeTask(launch.name(), launch.output());
    var devices = new TreeMap<String, List<String>>();
    var known = specs.specs();
    for (var cdi : launch.cdiDevices()) {
      var owner = known.entrySet().stream().filter(e -> e.getValue().contains(cdi)).findFirst();
      if (owner.isEmpty()) {
        handle.finish(
            new TaskResult.StartFailed("unresolvable CDI device " + cdi + ": no spec lists it"));
        return handle;
      }
      var uid = owner.get().getKey();
      var device = cdi.substring(cdi.indexOf(uid) + uid.length() + 1);
      devices.computeIfAbsent(uid, k -> new ArrayList<>()).add(device);
    }
    // A slice's process opens its parent's node and the capability nodes its spec lists (the CDI
    // spec is all a container gets); a whole GPU's, its own node.
    var slices = specs.slices();
    var needed = new ArrayList<String>();
    devices.forEach(
        (uid, ds) -> {
          for (var d : ds) {
            var slice =
                slices.getOrDefault(uid, List.of()).stream()
                    .filter(s -> s.name().equals(d))
                    .findFirst();
            if (slice.isPresent()) {
              needed.add("/dev/nvidia" + slice.get().slice().parent().index());
              slice.get().capabilityNodes().forEach(n -> needed.add(n.path()));
            } else {
              needed.add("/dev/nvidia" + d.substring(d.indexOf('-') + 1));
            }
          }
        });
    if (!needed.isEmpty()) {
      ControlNode.requiredNodes().forEach(c -> needed.add("/dev/" + c.fileName()));
    }
    var opened = new ArrayList<String>();
    Proc proc;
    synchronized (this) {
      var volumePaths =
          launch.env().entrySet().stream()
              .filter(e -> e.getKey().startsWith("QM_VOLUME_"))
              .map(Map.Entry::getValue)
              .sorted()
              .toList();
      proc = new Proc(nextPid++, launch.name(), devices, opened, volumePaths, handle);
      procs.put(proc.pid(), proc);
    }
    for (var path : needed) {
      var file = path.substring(path.lastIndexOf('/') + 1);
      if (!tree.present(file)) {
        handle.finish(
            new TaskResult.DeviceCheckFailed(
                new DeviceCheck.Failed(
                    path, "ENOENT", "No such file or directory", List.copyOf(opened))));
        return handle;
      }
      opened.add(path);
    }
    var passed = new DeviceCheck.Passed(opened);
    handle.onKill(tree -> handle.finish(new TaskResult.Exited(KILLED, passed)));
    handle.running(passed);
    var command = launch.command().getFirst();
    if (command.equals("fail") || command.equals("done")) {
      env.schedule(
          RUN_TIME,
          () -> handle.finish(new TaskResult.Exited(command.equals("fail") ? 1 : 0, passed)));
    }
    return handle;
  }
}
