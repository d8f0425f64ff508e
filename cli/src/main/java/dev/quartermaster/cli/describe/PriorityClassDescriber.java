package dev.quartermaster.cli.describe;

import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.queue.PriorityClass;

/** A priority class: its value, what it is for, and the workloads that name it. */
final class PriorityClassDescriber implements Describer<PriorityClass> {

  @Override
  public void describe(PriorityClass pc, DescribeContext context, Description out) {
    var name = pc.metadata().name();
    out.field("Value", pc.spec().value())
        .field("Description", pc.spec().description())
        .values(
            "Workloads",
            context.api().list(Kinds.WORKLOAD).items().stream()
                .filter(w -> w.spec().priority().filter(name::equals).isPresent())
                .map(w -> w.metadata().name() + " (queue " + w.spec().queueName() + ")")
                .sorted()
                .toList());
  }
}
