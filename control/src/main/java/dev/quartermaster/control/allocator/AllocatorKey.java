package dev.quartermaster.control.allocator;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.meta.Kinds;

/**
 * What the allocator's queue holds: a task whose claims to place together, a claim no task owns, or
 * a node whose allocation record to keep true. The queue itself holds strings ({@link #queueKey});
 * everything else speaks of these.
 */
public sealed interface AllocatorKey {
  /** The object's name. */
  String name();

  /**
   * The string the queue holds: {@code task/<name>}, {@code claim/<name>}, {@code
   * gang/<workload>/<group>} or {@code node/<name>}.
   */
  String queueKey();

  /** A task: its claims are placed together, on one node. */
  record ForTask(String name) implements AllocatorKey {
    @Override
    public String queueKey() {
      return "task/" + name;
    }
  }

  /** A claim no task owns (a task that names it is placed through its own key). */
  record ForClaim(String name) implements AllocatorKey {
    @Override
    public String queueKey() {
      return "claim/" + name;
    }
  }

  /**
   * A gang: a worker group placed together ({@code name} is {@code <workload>/<group>}, as the
   * informers' group index spells it).
   */
  record ForGang(String name) implements AllocatorKey {
    @Override
    public String queueKey() {
      return "gang/" + name;
    }

    String workload() {
      return name.substring(0, name.indexOf('/'));
    }

    String group() {
      return name.substring(name.indexOf('/') + 1);
    }
  }

  /**
   * A node: its allocation record is cleaned of garbage (and, once, adopts claims from before
   * records).
   */
  record ForNode(String name) implements AllocatorKey {
    @Override
    public String queueKey() {
      return "node/" + name;
    }
  }

  static AllocatorKey task(String name) {
    return new ForTask(name);
  }

  static AllocatorKey claim(String name) {
    return new ForClaim(name);
  }

  static AllocatorKey gang(String workload, String group) {
    return new ForGang(workload + "/" + group);
  }

  static AllocatorKey node(String name) {
    return new ForNode(name);
  }

  /** The key a change to {@code c} concerns: its owning task's, or its own. */
  static AllocatorKey of(ResourceClaim c) {
    return c.metadata()
        .owner()
        .filter(o -> o.kind().equals(Kinds.TASK.name()))
        .<AllocatorKey>map(o -> new ForTask(o.name()))
        .orElseGet(() -> new ForClaim(c.metadata().name()));
  }

  /** The key {@code queueKey} stands for. */
  static AllocatorKey parse(String queueKey) {
    int slash = queueKey.indexOf('/');
    var name = queueKey.substring(slash + 1);
    return switch (slash < 0 ? "" : queueKey.substring(0, slash)) {
      case "task" -> new ForTask(name);
      case "claim" -> new ForClaim(name);
      case "node" -> new ForNode(name);
      case "gang" -> new ForGang(name);
      default -> throw new IllegalArgumentException("unknown allocator key " + queueKey);
    };
  }
}
