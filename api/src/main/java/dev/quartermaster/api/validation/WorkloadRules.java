package dev.quartermaster.api.validation;

import dev.quartermaster.api.gang.GangSpec;
import dev.quartermaster.api.gang.TopologyKeys;
import dev.quartermaster.api.queue.Demand;
import dev.quartermaster.api.volume.VolumeUse;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.WorkloadSpec;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Rules for workloads and tasks. */
final class WorkloadRules {
  static final int MAX_GROUPS = 32;
  static final int MAX_REPLICAS = 10_000;

  /** The longest a finished workload may be kept by its TTL: a year, in seconds. */
  static final int MAX_TTL_SECONDS = 365 * 24 * 3600;

  static final Set<String> RUNTIMES = Set.of("exec", "podman", "noop");

  /** The claim template name a workload in a compute domain keeps for its tasks' channel claims. */
  static final String CHANNEL_CLAIM = dev.quartermaster.api.workload.WorkloadSpec.CHANNEL_CLAIM;

  private WorkloadRules() {}

  static void workload(String name, WorkloadSpec spec, Violations v) {
    var groups = spec.groups();
    v.check(!groups.isEmpty(), "spec.groups", "must have at least 1 group");
    v.check(
        groups.size() <= MAX_GROUPS, "spec.groups", "must have at most " + MAX_GROUPS + " groups");
    v.uniqueDnsLabels("spec.groups[*].name", groups.stream().map(g -> g.name()).toList());
    for (int i = 0; i < groups.size(); i++) {
      var g = groups.get(i);
      var at = "spec.groups[" + i + "]";
      v.check(g.replicas() >= 0, at + ".replicas", "must be >= 0");
      v.check(g.replicas() <= MAX_REPLICAS, at + ".replicas", "must be <= " + MAX_REPLICAS);
      // Task names are <workload>-<group>-<ordinal>; claims add -<template>. Both must stay DNS
      // labels.
      var longestTask = name + "-" + g.name() + "-" + Math.max(0, g.replicas() - 1);
      v.check(
          longestTask.length() <= Names.MAX_LABEL,
          at + ".name",
          "task names '"
              + longestTask
              + "' would exceed 63 characters; shorten the workload or group name");
      template(at + ".template", g.template(), v);
      v.uniqueDnsLabels(
          at + ".claimTemplates[*].name", g.claimTemplates().stream().map(c -> c.name()).toList());
      for (int j = 0; j < g.claimTemplates().size(); j++) {
        var c = g.claimTemplates().get(j);
        var claimName = longestTask + "-" + c.name();
        v.check(
            claimName.length() <= Names.MAX_LABEL,
            at + ".claimTemplates[" + j + "].name",
            "claim names '" + claimName + "' would exceed 63 characters");
        ClaimRules.spec(
            at + ".claimTemplates[" + j + "].spec", c.spec(), spec.computeDomain().isPresent(), v);
        v.check(
            spec.computeDomain().isEmpty() || !c.name().equals(CHANNEL_CLAIM),
            at + ".claimTemplates[" + j + "].name",
            "must not be '"
                + CHANNEL_CLAIM
                + "' in a workload with a compute domain: each task's claim <task>-"
                + CHANNEL_CLAIM
                + " holds its IMEX channels");
      }
      volumeClaimTemplates(at, longestTask, g, v);
      g.gang().ifPresent(gang -> gang(at + ".gang", g.replicas(), gang, v));
      if (spec.gang().isPresent()) {
        shareOfWorkloadGang(at, g, spec.computeDomain().isPresent(), v);
      }
    }
    devices(spec, v);
    spec.computeDomain().ifPresent(d -> v.dnsLabel("spec.computeDomain", d));
    spec.queue().ifPresent(q -> v.dnsLabel("spec.queue", q));
    spec.priority().ifPresent(p -> v.dnsLabel("spec.priority", p));
    spec.gang().ifPresent(gang -> workloadGang(gang, v));
    spec.ttlSecondsAfterFinished()
        .ifPresent(
            ttl -> {
              v.check(ttl >= 0, "spec.ttlSecondsAfterFinished", "must be >= 0");
              v.check(
                  ttl <= MAX_TTL_SECONDS,
                  "spec.ttlSecondsAfterFinished",
                  "must be <= " + MAX_TTL_SECONDS + " (a year)");
            });
    spec.startTimeoutSeconds()
        .ifPresent(
            s ->
                v.check(
                    s >= MIN_START_TIMEOUT_SECONDS && s <= MAX_START_TIMEOUT_SECONDS,
                    "spec.startTimeoutSeconds",
                    "must be from "
                        + MIN_START_TIMEOUT_SECONDS
                        + " to "
                        + MAX_START_TIMEOUT_SECONDS
                        + " (seconds an admitted workload may take until its tasks run, before"
                        + " its quota goes back)"));
  }

  /**
   * At least 10 s: a timeout shorter than a task takes to be placed and started would evict every
   * workload before it could run. At most a day: a workload that may hold quota idle for longer has
   * no timeout worth the name.
   */
  static final int MIN_START_TIMEOUT_SECONDS = 10;

  static final int MAX_START_TIMEOUT_SECONDS = 86_400;

  /**
   * What one workload may ask of its queue is bounded as a whole, not only field by field: each
   * field within its limit, their product passed 2³² and wrapped (a workload of 4,294,967,300 GPUs
   * admitted into a quota of 4).
   */
  private static void devices(WorkloadSpec spec, Violations v) {
    long devices = Demand.devices(spec);
    v.check(
        devices <= Demand.MAX_DEVICES,
        "spec.groups",
        "ask for "
            + devices
            + " devices in all (each group's replicas × its claim templates' request counts); a"
            + " workload asks for at most "
            + Demand.MAX_DEVICES);
  }

  /**
   * The workload's own gang: what a member's failure does and where they go, for every group; how
   * many of each group it places is each group's to say.
   */
  private static void workloadGang(GangSpec gang, Violations v) {
    v.check(
        gang.minMember().isEmpty(),
        "spec.gang.minMember",
        "must not be set on a workload's gang: set each group's gang.minMember instead"
            + " (its share of the gang; default all its replicas)");
    topology("spec.gang", gang, v);
  }

  /**
   * A group of a workload gang gives only its share ({@code minMember}); and it must ask for
   * devices, since the gang places its members by their devices: a member that asks for none would
   * be scheduled on its own at once, and the gang would wait for it for ever.
   */
  private static void shareOfWorkloadGang(
      String at, WorkerGroup g, boolean computeDomain, Violations v) {
    g.gang()
        .ifPresent(
            gang -> {
              v.check(
                  gang.onMemberFailure().isEmpty(),
                  at + ".gang.onMemberFailure",
                  "must not be set on a group of a workload gang: spec.gang.onMemberFailure says it"
                      + " for every group");
              v.check(
                  gang.topology().isEmpty(),
                  at + ".gang.topology",
                  "must not be set on a group of a workload gang: spec.gang.topology says it for"
                      + " every group");
            });
    v.check(
        !g.claimTemplates().isEmpty() || computeDomain,
        at + ".claimTemplates",
        "must not be empty in a workload gang: the gang places its members by their devices, and a"
            + " member that asks for none would start on its own");
  }

  /**
   * A template's volumes are named {@code <task>-<template>} and seen by the template's name, so
   * the name must fit a label and must not be the {@code mountAs} of one of the template's own
   * volumes (two volumes behind one {@code $QM_VOLUME_} variable).
   */
  private static void volumeClaimTemplates(
      String at, String longestTask, WorkerGroup g, Violations v) {
    var templates = g.volumeClaimTemplates();
    v.uniqueDnsLabels(
        at + ".volumeClaimTemplates[*].name", templates.stream().map(t -> t.name()).toList());
    var mounts = g.template().volumes().stream().map(VolumeUse::mountAs).toList();
    for (int j = 0; j < templates.size(); j++) {
      var t = templates.get(j);
      var field = at + ".volumeClaimTemplates[" + j + "]";
      var volumeName = longestTask + "-" + t.name();
      v.check(
          volumeName.length() <= Names.MAX_LABEL,
          field + ".name",
          "volume names '" + volumeName + "' would exceed 63 characters");
      int clash = mounts.indexOf(t.name());
      v.check(
          clash < 0,
          field + ".name",
          "must not be the mountAs of template.volumes["
              + clash
              + "] ('"
              + t.name()
              + "'): both would be seen by one name");
      VolumeRules.spec(field + ".spec", t.spec(), v);
      v.check(
          VolumeRules.WRITABLE.contains(t.spec().accessMode()),
          field + ".spec.accessMode",
          "must allow a writer (SingleNodeWriter, MultiNodeSingleWriter or MultiNodeMultiWriter): each task writes its own volume");
    }
  }

  private static void gang(String at, int replicas, GangSpec gang, Violations v) {
    gang.minMember()
        .ifPresent(
            m -> {
              v.check(m >= 1, at + ".minMember", "must be >= 1");
              v.check(
                  m <= Math.max(1, replicas),
                  at + ".minMember",
                  "must be <= the group's replicas (" + replicas + ")");
            });
    topology(at, gang, v);
  }

  private static void topology(String at, GangSpec gang, Violations v) {
    var t = gang.placement();
    t.required().ifPresent(k -> topologyKey(at + ".topology.required", k, v));
    t.preferred().ifPresent(k -> topologyKey(at + ".topology.preferred", k, v));
  }

  private static void topologyKey(String field, String key, Violations v) {
    v.check(
        Names.isQualifiedName(key),
        field,
        "must be a node label key like "
            + TopologyKeys.NVLINK_CLIQUE
            + " ([prefix/]name: a DNS subdomain prefix and a name of letters, digits, '-', '_', '.')");
  }

  static void task(TaskSpec spec, Violations v) {
    spec.node().ifPresent(n -> v.dnsLabel("spec.node", n));
    process("spec", spec.command(), spec.env(), spec.runtime(), spec.image(), v);
    v.uniqueDnsLabels("spec.claims", spec.claims());
    volumeUses("spec.volumes", spec.volumes(), v);
    v.check(spec.attempt() >= 0, "spec.attempt", "must be >= 0");
    grace("spec.terminationGracePeriodSeconds", spec.terminationGracePeriodSeconds(), v);
    deadline("spec.activeDeadlineSeconds", spec.activeDeadlineSeconds(), v);
  }

  private static void template(String field, TaskTemplate t, Violations v) {
    process(field, t.command(), t.env(), t.runtime(), t.image(), v);
    volumeUses(field + ".volumes", t.volumes(), v);
    grace(field + ".terminationGracePeriodSeconds", t.terminationGracePeriodSeconds(), v);
    deadline(field + ".activeDeadlineSeconds", t.activeDeadlineSeconds(), v);
  }

  private static void deadline(String field, Optional<Integer> seconds, Violations v) {
    seconds.ifPresent(
        s ->
            v.check(
                s >= 1,
                field,
                "must be >= 1 (seconds a task may run before it is stopped; omit it for no"
                    + " limit)"));
  }

  /** At most an hour: a stop that may take longer is a job of its own, not a grace period. */
  static final int MAX_GRACE_SECONDS = 3600;

  private static void grace(String field, Optional<Integer> seconds, Violations v) {
    seconds.ifPresent(
        s ->
            v.check(
                s >= 0 && s <= MAX_GRACE_SECONDS,
                field,
                "must be from 0 to "
                    + MAX_GRACE_SECONDS
                    + " (seconds between SIGTERM and SIGKILL)"));
  }

  /** Each volume used once, and each seen by its own name ({@code $QM_VOLUME_<MOUNTAS>}). */
  private static void volumeUses(String field, List<VolumeUse> uses, Violations v) {
    v.uniqueDnsLabels(field, uses.stream().map(VolumeUse::name).toList());
    var seen = new HashMap<String, Integer>();
    for (int i = 0; i < uses.size(); i++) {
      var u = uses.get(i);
      if (!u.mountAs().equals(u.name())) { // a name's own rule covers the default
        v.dnsLabel(field + "[" + i + "].mountAs", u.mountAs());
      }
      var first = seen.putIfAbsent(u.mountAs(), i);
      v.check(
          first == null || u.mountAs().isEmpty(),
          field + "[" + i + "].mountAs",
          "must be unique, '"
              + u.mountAs()
              + "' is also the mountAs of "
              + field
              + "["
              + first
              + "]");
    }
  }

  private static void process(
      String field,
      List<String> command,
      Map<String, String> env,
      String runtime,
      Optional<String> image,
      Violations v) {
    v.check(!command.isEmpty(), field + ".command", "must not be empty");
    env.keySet()
        .forEach(
            k ->
                v.check(
                    Names.isEnvName(k),
                    field + ".env." + k,
                    "must be an environment variable name: letters, digits and '_', not starting with a digit"));
    v.check(RUNTIMES.contains(runtime), field + ".runtime", "must be one of exec, podman, noop");
    v.check(
        !runtime.equals("podman") || image.isPresent(),
        field + ".image",
        "required for runtime podman");
  }
}
