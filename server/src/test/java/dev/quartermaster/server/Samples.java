package dev.quartermaster.server;

import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Objects the server tests send. */
final class Samples {
  private Samples() {}

  static Workload workload(String name, int replicas) {
    var template =
        new TaskTemplate(
            List.of("python", "train.py"), Map.of(), "exec", Optional.empty(), List.of(), Map.of());
    var group = new WorkerGroup("workers", replicas, template, List.of(), null);
    return new Workload(
        ObjectMeta.named(name), new WorkloadSpec(List.of(group), Optional.empty()), null);
  }

  static Node node(String name) {
    return new Node(ObjectMeta.named(name), null, null);
  }

  static Node node(String name, Map<String, String> labels) {
    return new Node(ObjectMeta.named(name).withLabels(labels), null, null);
  }

  static String workloadJson(String name, int replicas) {
    return """
        {"kind":"Workload","metadata":{"name":"%s"},"spec":{"groups":[{"name":"workers","replicas":%d,"template":{"command":["python"]}}]}}"""
        .formatted(name, replicas);
  }
}
