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
   * gang/<workload>/<gang>} or {@code node/<name>}.
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
   * A gang: members placed together ({@code name} is {@code <workload>/<gang>}, the gang named as
   * {@code WorkloadGangs} names it: a group gang by its group, as the informers' group index spells
   * it, the workload's own gang {@code *}). Neither name has a slash, so the first one splits them.
   */
  record ForGang(String name) implements AllocatorKey {
    @Override
    public String queueKey() {
      return "gang/" + name;
    }

    String workload() {
      return name.substring(0, name.indexOf('/'));
    }

    /** The gang's name within its workload. */
    String gang() {
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

  static AllocatorKey gang(String workload, String gang) {
    return new ForGang(workload + "/" + gang);
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
