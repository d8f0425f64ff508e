package dev.quartermaster.api.validation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.gang.MemberFailurePolicy;
import dev.quartermaster.api.workload.Workload;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A workload's own gang ({@code spec.gang}) and its groups' shares, case by case: every refusal (a
 * 422 at the server) names the field and the rule; group gangs are judged as before.
 */
class WorkloadGangRulesTest {
  private static final String RACK = "topology.quartermaster.dev/rack";

  /**
   * A launcher of 1 and 4 workers; {@code spec} and {@code launcher} are extra lines of the spec
   * and of the launcher group (its claim templates included, so that a case may leave them out).
   */
  private static Workload workload(String spec, String launcher) {
    var yaml =
        """
        kind: Workload
        metadata: {name: mpi}
        spec:
        %s
          groups:
          - name: launcher
            replicas: 1
            template: {command: [launch]}
        %s
          - name: workers
            replicas: 4
            template: {command: [work]}
            claimTemplates:
            - name: gpu
              spec: {requests: [{name: gpu, deviceClassName: gpu, count: 1}]}
        """
            .formatted(indent(spec, 2), indent(launcher, 4));
    return (Workload) ObjectCodec.fromYaml(yaml).getFirst();
  }

  private static String indent(String lines, int by) {
    return lines.lines().map(l -> " ".repeat(by) + l).reduce((a, b) -> a + "\n" + b).orElse("");
  }

  private static final String CLAIMS =
      """
      claimTemplates:
      - name: gpu
        spec: {requests: [{name: gpu, deviceClassName: gpu, count: 1}]}""";

  private record Case(String name, String spec, String launcher, List<Violation> expected) {}

  private static final List<Case> CASES =
      List.of(
          new Case(
              "a workload gang with its policy and topology, a group giving its share",
              "gang: {onMemberFailure: RestartGang, topology: {required: " + RACK + "}}",
              "gang: {minMember: 1}\n" + CLAIMS,
              List.of()),
          new Case(
              "a workload gang with nothing written: every replica, RestartMember, anywhere",
              "gang: {}",
              CLAIMS,
              List.of()),
          new Case(
              "minMember on the workload's gang",
              "gang: {minMember: 5}",
              CLAIMS,
              List.of(
                  new Violation(
                      "spec.gang.minMember",
                      "must not be set on a workload's gang: set each group's gang.minMember"
                          + " instead (its share of the gang; default all its replicas)"))),
          new Case(
              "onMemberFailure on a group of a workload gang",
              "gang: {onMemberFailure: RestartGang}",
              "gang: {onMemberFailure: RestartGang}\n" + CLAIMS,
              List.of(
                  new Violation(
                      "spec.groups[0].gang.onMemberFailure",
                      "must not be set on a group of a workload gang: spec.gang.onMemberFailure"
                          + " says it for every group"))),
          new Case(
              "onMemberFailure written as its default on a group of a workload gang",
              "gang: {onMemberFailure: RestartGang}",
              "gang: {onMemberFailure: RestartMember}\n" + CLAIMS,
              List.of(
                  new Violation(
                      "spec.groups[0].gang.onMemberFailure",
                      "must not be set on a group of a workload gang: spec.gang.onMemberFailure"
                          + " says it for every group"))),
          new Case(
              "topology on a group of a workload gang",
              "gang: {}",
              "gang: {minMember: 1, topology: {preferred: " + RACK + "}}\n" + CLAIMS,
              List.of(
                  new Violation(
                      "spec.groups[0].gang.topology",
                      "must not be set on a group of a workload gang: spec.gang.topology says it"
                          + " for every group"))),
          new Case(
              "a share over the group's replicas",
              "gang: {}",
              "gang: {minMember: 2}\n" + CLAIMS,
              List.of(
                  new Violation(
                      "spec.groups[0].gang.minMember", "must be <= the group's replicas (1)"))),
          new Case(
              "a share of none",
              "gang: {}",
              "gang: {minMember: 0}\n" + CLAIMS,
              List.of(new Violation("spec.groups[0].gang.minMember", "must be >= 1"))),
          new Case(
              "a workload gang's topology that is no label key",
              "gang: {topology: {required: \"rack please\"}}",
              CLAIMS,
              List.of(
                  new Violation(
                      "spec.gang.topology.required",
                      "must be a node label key like topology.quartermaster.dev/nvlink-clique"
                          + " ([prefix/]name: a DNS subdomain prefix and a name of letters,"
                          + " digits, '-', '_', '.')"))),
          new Case(
              "a group of a workload gang that asks for no devices",
              "gang: {}",
              "",
              List.of(
                  new Violation(
                      "spec.groups[0].claimTemplates",
                      "must not be empty in a workload gang: the gang places its members by their"
                          + " devices, and a member that asks for none would start on its own"))),
          new Case(
              "a group that asks for no devices of its own in a compute domain: its channels",
              "computeDomain: nvlink-job\ngang: {}",
              "",
              List.of()),
          new Case(
              "no workload gang: a group's gang says everything, as before",
              "",
              "gang: {minMember: 1, onMemberFailure: RestartGang, topology: {required: "
                  + RACK
                  + "}}",
              List.of()));

  @Test
  void eachCaseIsRefusedNamingItsFieldAndRuleOrAccepted() {
    for (var c : CASES) {
      assertThat(ObjectValidator.validate(workload(c.spec(), c.launcher())))
          .as(c.name())
          .containsExactlyInAnyOrderElementsOf(c.expected());
    }
  }

  /**
   * A rule that looks at the policy a group ends up with, rather than at what was written, lets an
   * explicit {@code onMemberFailure: RestartMember} through: the group would seem to say how its
   * members fail while the workload's gang decides it. The real rule refuses every written one.
   */
  @Test
  void aRuleOnTheResolvedPolicyMissesTheDefaultWrittenOut() {
    var misses = new ArrayList<String>();
    for (var c : CASES) {
      var w = workload(c.spec(), c.launcher());
      boolean real =
          ObjectValidator.validate(w).stream()
              .anyMatch(v -> v.field().endsWith(".gang.onMemberFailure"));
      boolean naive =
          w.spec().gang().isPresent()
              && w.spec().groups().stream()
                  .anyMatch(
                      g ->
                          g.gang()
                              .map(x -> x.failurePolicy() != MemberFailurePolicy.RestartMember)
                              .orElse(false));
      if (real != naive) {
        misses.add(c.name());
      }
    }
    assertThat(misses)
        .containsExactly("onMemberFailure written as its default on a group of a workload gang");
  }
}
