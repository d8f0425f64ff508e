package dev.quartermaster.api.validation;

import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.api.volume.VolumeUse;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Rules for workloads and tasks. */
final class WorkloadRules {
  static final int MAX_GROUPS = 32;
  static final int MAX_REPLICAS = 10_000;
  static final Set<String> RUNTIMES = Set.of("exec", "podman", "noop");

  private WorkloadRules() {}

  static void workload(String name, WorkloadSpec spec, Violations v) {
    var groups = spec.groups();
    v.check(!groups.isEmpty(), "spec.groups", "must have at least 1 group");
    v.check(groups.size() <= MAX_GROUPS, "spec.groups", "must have at most " + MAX_GROUPS + " groups");
    v.uniqueDnsLabels("spec.groups[*].name", groups.stream().map(g -> g.name()).toList());
    for (int i = 0; i < groups.size(); i++) {
      var g = groups.get(i);
      var at = "spec.groups[" + i + "]";
      v.check(g.replicas() >= 0, at + ".replicas", "must be >= 0");
      v.check(g.replicas() <= MAX_REPLICAS, at + ".replicas", "must be <= " + MAX_REPLICAS);
      // Task names are <workload>-<group>-<ordinal>; claims add -<template>. Both must stay DNS labels.
      var longestTask = name + "-" + g.name() + "-" + Math.max(0, g.replicas() - 1);
      v.check(longestTask.length() <= Names.MAX_LABEL, at + ".name",
          "task names '" + longestTask + "' would exceed 63 characters; shorten the workload or group name");
      template(at + ".template", g.template(), v);
      v.uniqueDnsLabels(at + ".claimTemplates[*].name", g.claimTemplates().stream().map(c -> c.name()).toList());
      for (int j = 0; j < g.claimTemplates().size(); j++) {
        var c = g.claimTemplates().get(j);
        var claimName = longestTask + "-" + c.name();
        v.check(claimName.length() <= Names.MAX_LABEL, at + ".claimTemplates[" + j + "].name",
            "claim names '" + claimName + "' would exceed 63 characters");
        ClaimRules.spec(at + ".claimTemplates[" + j + "].spec", c.spec(), v);
      }
    }
    spec.computeDomain().ifPresent(d -> v.dnsLabel("spec.computeDomain", d));
  }

  static void task(TaskSpec spec, Violations v) {
    spec.node().ifPresent(n -> v.dnsLabel("spec.node", n));
    process("spec", spec.command(), spec.env(), spec.runtime(), spec.image(), v);
    v.uniqueDnsLabels("spec.claims", spec.claims());
    v.uniqueDnsLabels("spec.volumes", spec.volumes().stream().map(VolumeUse::name).toList());
    v.check(spec.attempt() >= 0, "spec.attempt", "must be >= 0");
  }

  private static void template(String field, TaskTemplate t, Violations v) {
    process(field, t.command(), t.env(), t.runtime(), t.image(), v);
    v.uniqueDnsLabels(field + ".volumes", t.volumes().stream().map(VolumeUse::name).toList());
  }

  private static void process(String field, List<String> command, Map<String, String> env, String runtime,
      Optional<String> image, Violations v) {
    v.check(!command.isEmpty(), field + ".command", "must not be empty");
    env.keySet().forEach(k -> v.check(Names.isEnvName(k), field + ".env." + k,
        "must be an environment variable name: letters, digits and '_', not starting with a digit"));
    v.check(RUNTIMES.contains(runtime), field + ".runtime", "must be one of exec, podman, noop");
    v.check(!runtime.equals("podman") || image.isPresent(), field + ".image", "required for runtime podman");
  }
}
