package dev.quartermaster.agent.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.agent.checkpoint.CorruptCheckpointException.Problem;
import dev.quartermaster.agent.ledger.ClaimLedger;
import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.agent.ledger.LedgerState;
import dev.quartermaster.agent.ledger.PrepareRequest;
import dev.quartermaster.core.env.DeterministicEnv;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointCodecTest {
  private static final String LOC = "/state/ledger.json";

  static LedgerState sample() {
    var env = new DeterministicEnv(1);
    var ledger = new ClaimLedger(env, ClaimLedger.DEFAULT_TOMBSTONE_TTL);
    var a = new ClaimRef("uid-a", "claim-a");
    ledger.prepare(new PrepareRequest(a, List.of("gpu-0", "gpu-1"), Optional.of("cd-1")));
    ledger.complete(
        a.uid(), List.of("quartermaster.dev/gpu=uid-a-gpu-0", "quartermaster.dev/gpu=uid-a-gpu-1"));
    ledger.prepare(PrepareRequest.of(new ClaimRef("uid-b", "claim-b"), List.of("gpu-2")));
    var c = new ClaimRef("uid-c", "claim-c");
    ledger.prepare(PrepareRequest.of(c, List.of("gpu-3")));
    ledger.unprepare(c);
    return ledger.snapshot();
  }

  private static String text(LedgerState s) {
    return new String(CheckpointCodec.encode(s, "boot-1"), StandardCharsets.UTF_8);
  }

  @Test
  void roundTripsEveryState() throws Exception {
    var state = sample();
    var decoded = CheckpointCodec.decode(CheckpointCodec.encode(state, "boot-1"), LOC);
    assertThat(decoded.state()).isEqualTo(state);
    assertThat(decoded.bootId()).isEqualTo("boot-1");
    assertThat(decoded.formatVersion()).isEqualTo(CheckpointCodec.VERSION);
  }

  @Test
  void reformattingTheJsonKeepsTheChecksumValid() throws Exception {
    var compact = text(sample()).replaceAll("\\n\\s*", "");
    assertThat(CheckpointCodec.decode(compact.getBytes(StandardCharsets.UTF_8), LOC).state())
        .isEqualTo(sample());
  }

  @Test
  void malformedBytesAreALoudErrorNamingTheFile() {
    for (var bad : List.of("", "{", "not json", "[1,2]", "\u0000\u0001garbage")) {
      assertThatThrownBy(() -> CheckpointCodec.decode(bad.getBytes(StandardCharsets.UTF_8), LOC))
          .isInstanceOfSatisfying(
              CorruptCheckpointException.class,
              e -> {
                assertThat(e.problem()).isEqualTo(Problem.MALFORMED);
                assertThat(e.getMessage()).contains(LOC).contains("MALFORMED");
              });
    }
  }

  @Test
  void aTruncatedFileIsMalformed() {
    var full = CheckpointCodec.encode(sample(), "boot-1");
    for (int cut : new int[] {1, full.length / 3, full.length / 2, full.length - 2}) {
      var truncated = java.util.Arrays.copyOf(full, cut);
      assertThatThrownBy(() -> CheckpointCodec.decode(truncated, LOC))
          .isInstanceOf(CorruptCheckpointException.class);
    }
  }

  @Test
  void aChangedByteIsAChecksumMismatch() {
    var tampered = text(sample()).replace("\"gpu-2\"", "\"gpu-9\"");
    assertThatThrownBy(() -> CheckpointCodec.decode(tampered.getBytes(StandardCharsets.UTF_8), LOC))
        .isInstanceOfSatisfying(
            CorruptCheckpointException.class,
            e -> {
              assertThat(e.problem()).isEqualTo(Problem.CHECKSUM_MISMATCH);
              assertThat(e.getMessage())
                  .contains(LOC)
                  .contains("stored sha256:")
                  .contains("computed sha256:");
            });
    var otherBoot = text(sample()).replace("\"boot-1\"", "\"boot-2\"");
    assertThatThrownBy(
            () -> CheckpointCodec.decode(otherBoot.getBytes(StandardCharsets.UTF_8), LOC))
        .isInstanceOfSatisfying(
            CorruptCheckpointException.class,
            e -> assertThat(e.problem()).isEqualTo(Problem.CHECKSUM_MISMATCH));
  }

  @Test
  void unknownFormatVersionsAreRefusedByName() {
    for (var version : List.of("2", "0", "999", "\"1\"", "1.5")) {
      var other = text(sample()).replaceFirst("\"version\" : 1", "\"version\" : " + version);
      assertThatThrownBy(() -> CheckpointCodec.decode(other.getBytes(StandardCharsets.UTF_8), LOC))
          .isInstanceOfSatisfying(
              CorruptCheckpointException.class,
              e -> {
                assertThat(e.problem()).isEqualTo(Problem.UNSUPPORTED_VERSION);
                assertThat(e.getMessage()).contains(LOC).contains(version.replace("\"", ""));
              });
    }
  }

  @Test
  void aForeignJsonFileIsNotALedger() {
    assertThatThrownBy(
            () ->
                CheckpointCodec.decode("{\"kind\":\"Node\"}".getBytes(StandardCharsets.UTF_8), LOC))
        .isInstanceOfSatisfying(
            CorruptCheckpointException.class,
            e -> assertThat(e.problem()).isEqualTo(Problem.NOT_A_LEDGER));
  }

  @Test
  void checksummedButInvalidContentIsRefused() throws Exception {
    // Rebuild the checksum so that only the content rule can catch these.
    for (var edit :
        List.of(
            new String[] {"\"uid-b\"", "\"../../etc\"", "uid"},
            new String[] {"\"gpu-2\"", "\"../gpu\"", "device name"},
            new String[] {"\"gpu-2\"", "\"gpu-0\"", "held by two claims"},
            new String[] {"\"PrepareStarted\"", "\"PrepareMaybe\"", "unknown state"})) {
      var node =
          (com.fasterxml.jackson.databind.node.ObjectNode)
              new com.fasterxml.jackson.databind.ObjectMapper()
                  .readTree(text(sample()).replace(edit[0], edit[1]));
      node.remove("checksum");
      node.put("checksum", CheckpointCodec.checksum(node));
      var bytes = node.toString().getBytes(StandardCharsets.UTF_8);
      assertThatThrownBy(() -> CheckpointCodec.decode(bytes, LOC))
          .as(edit[1])
          .isInstanceOfSatisfying(
              CorruptCheckpointException.class,
              e -> {
                assertThat(e.problem()).isEqualTo(Problem.INVALID_CONTENT);
                assertThat(e.getMessage()).contains(LOC).contains(edit[2]);
              });
    }
  }

  @Test
  void aCorruptFileStopsTheLedgerFromOpeningAndIsLeftUntouched(@TempDir Path dir) throws Exception {
    var path = dir.resolve("ledger.json");
    Files.writeString(path, "{ half a ledger");
    var before = Files.readAllBytes(path);
    assertThatThrownBy(
            () ->
                DurableLedger.open(
                    new AtomicLedgerFile(path),
                    "boot-1",
                    new DeterministicEnv(1),
                    ClaimLedger.DEFAULT_TOMBSTONE_TTL))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining(path.toString());
    assertThat(Files.readAllBytes(path)).isEqualTo(before);
    try (var files = Files.list(dir)) {
      assertThat(files).containsExactly(path);
    }
  }
}
