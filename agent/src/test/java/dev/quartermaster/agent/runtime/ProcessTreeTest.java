package dev.quartermaster.agent.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The processes under a task's process, from the kernel's lists of children or from the whole tree
 * (a zombie not counting as running is shown by {@code FileRunRecordsTest}).
 */
class ProcessTreeTest {
  private final List<Process> started = new ArrayList<>();

  @AfterEach
  void killStarted() {
    for (var p : started) {
      p.descendants().forEach(ProcessHandle::destroyForcibly); // the nested shell's sleep too
      p.destroyForcibly();
    }
  }

  /**
   * A shell that starts a shell that starts a sleep: returns the outer shell and the pids it
   * printed.
   */
  private List<Long> nested(Process[] outer) throws Exception {
    var p = new ProcessBuilder("sh", "-c", "sh -c 'sleep 300 & echo $$ $!; wait' & wait").start();
    started.add(p);
    outer[0] = p;
    var line = p.inputReader().readLine().strip().split(" ");
    return List.of(Long.parseLong(line[0]), Long.parseLong(line[1]));
  }

  @Test
  void bothWaysFindTheWholeSubtreeAndNothingElse() throws Exception {
    var outer = new Process[1];
    var pids = nested(outer);
    var other = new ProcessBuilder("sleep", "300").start(); // a sibling, not under it
    started.add(other);

    for (var tree : List.of(ProcessTree.onDemand(), ProcessTree.scanning())) {
      assertThat(tree.descendants(outer[0].pid()).stream().map(ProcessHandle::pid).toList())
          .containsExactlyInAnyOrderElementsOf(pids);
    }
    assertThat(ProcessTree.onDemand().descendants(Long.MAX_VALUE)).isEmpty(); // no such process
  }
}
