package dev.quartermaster.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.control.leader.LeaseRecord;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The banner's word on this server's controllers is true when printed: a server whose first
 * campaign has not run yet is taking a free lease, not standing by (it once said 'this one stands
 * by' and led a second later; issue 43, item 20).
 */
class ServerBannerTest {
  private static final String SELF = "host/127.0.0.1:7481/pid-1";
  private static final long NOW = 1_000_000;

  @Test
  void aLeaderSaysItLeads() {
    assertThat(ServerCommand.controllersState(true, Optional.empty(), SELF, NOW))
        .isEqualTo("this one leads now");
  }

  @Test
  void aFreeExpiredOrOwnLeaseIsBeingTakenNotWaitedFor() {
    for (var lease :
        java.util.List.of(
            Optional.<LeaseRecord>empty(),
            Optional.of(new LeaseRecord("other", NOW - 20_000, 15_000, 3)),
            Optional.of(new LeaseRecord(SELF, NOW - 1_000, 15_000, 4)))) {
      assertThat(ServerCommand.controllersState(false, lease, SELF, NOW))
          .as("%s", lease)
          .startsWith("this one is taking the lease, which no server holds now")
          .doesNotContain("stands by");
    }
  }

  @Test
  void anotherLiveHolderIsNamed() {
    var lease = Optional.of(new LeaseRecord("host/127.0.0.2:7482/pid-9", NOW - 2_000, 15_000, 5));
    assertThat(ServerCommand.controllersState(false, lease, SELF, NOW))
        .isEqualTo(
            "this one waits: host/127.0.0.2:7482/pid-9 holds the lease; this one takes over if that"
                + " one goes silent for 15.0 s (its log then says 'controllers starting')");
  }
}
