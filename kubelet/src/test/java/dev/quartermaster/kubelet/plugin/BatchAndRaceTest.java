package dev.quartermaster.kubelet.plugin;

import static dev.quartermaster.kubelet.plugin.PluginFixture.A;
import static dev.quartermaster.kubelet.plugin.PluginFixture.B;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.kubelet.claims.KubeClaim;
import dev.quartermaster.kubelet.dra.v1.Claim;
import dev.quartermaster.kubelet.dra.v1.DRAPluginGrpc;
import dev.quartermaster.kubelet.dra.v1.NodePrepareResourcesRequest;
import java.util.ArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Several claims in one call (the kubelet batches a pod's claims), and prepares of A and B racing
 * on two connections (two pods' workers): the calls run concurrently in the plugin, and the ledger
 * alone decides.
 */
@Timeout(300)
class BatchAndRaceTest {

  @Test
  void everyClaimOfABatchIsAnsweredTheSecondRefusedForTheFirstsDevice() throws Exception {
    try (var node = new PluginFixture()) {
      var dotted = new KubeClaim("team-1", "train.v2", "0d0d0d0d-0000-4000-8000-00000000000d");
      node.allocate(dotted, "gpu-1");
      var stub = DRAPluginGrpc.newBlockingStub(node.connectRaw(node.config().draSocket()));
      var request = NodePrepareResourcesRequest.newBuilder();
      for (var c : new KubeClaim[] {A, B, dotted}) {
        request.addClaims(
            Claim.newBuilder().setNamespace(c.namespace()).setName(c.name()).setUid(c.uid()));
      }
      var response =
          stub.withDeadlineAfter(60, TimeUnit.SECONDS).nodePrepareResources(request.build());

      assertThat(response.getClaimsMap()).containsOnlyKeys(A.uid(), B.uid(), dotted.uid());
      assertThat(response.getClaimsOrThrow(A.uid()).getError()).isEmpty();
      assertThat(response.getClaimsOrThrow(B.uid()).getError()).contains(A.uid());
      assertThat(response.getClaimsOrThrow(dotted.uid()).getError()).isEmpty();
      assertThat(node.plugin().ledger().get(dotted.uid()).orElseThrow().claim().name())
          .isEqualTo("train-v2");
      assertThat(node.specsOnDisk()).containsExactlyInAnyOrder(A.uid(), dotted.uid());
    }
  }

  @Test
  void racingPreparesOfTwoClaimsForOneDevicePrepareExactlyOne() throws Exception {
    for (int round = 0; round < 20; round++) {
      try (var node = new PluginFixture()) {
        var kubeletA = node.kubelet(KubeletClient.Version.V1);
        var kubeletB = node.kubelet(KubeletClient.Version.V1BETA1);
        var go = new CountDownLatch(1);
        var answers = new ArrayList<KubeletCalls.PrepareAnswer>();
        var threads = new ArrayList<Thread>();
        for (var pair :
            java.util.List.of(java.util.Map.entry(kubeletA, A), java.util.Map.entry(kubeletB, B))) {
          threads.add(
              Thread.ofVirtual()
                  .start(
                      () -> {
                        try {
                          go.await();
                        } catch (InterruptedException e) {
                          Thread.currentThread().interrupt();
                          return;
                        }
                        var answer = pair.getKey().prepare(pair.getValue());
                        synchronized (answers) {
                          answers.add(answer);
                        }
                      }));
        }
        go.countDown();
        for (var t : threads) {
          t.join();
        }
        assertThat(answers).hasSize(2);
        assertThat(answers.stream().filter(KubeletCalls.PrepareAnswer::prepared))
            .as("round %d: %s", round, answers)
            .hasSize(1);
        assertThat(node.specsOnDisk()).hasSize(1);
        assertThat(node.plugin().ledger().holding()).hasSize(1);
      }
    }
  }
}
