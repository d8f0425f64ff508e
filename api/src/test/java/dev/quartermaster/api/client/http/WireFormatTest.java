package dev.quartermaster.api.client.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.client.ObjectList;
import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.error.ApiError;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class WireFormatTest {
  private static final Node NODE = new Node(ObjectMeta.named("gpu-1").withRevision(7), null, null);

  @Test
  void pathSegmentsCannotEscapeTheirSegment() {
    assertThat(HttpWire.encodeSegment("gpu-1")).isEqualTo("gpu-1");
    assertThat(HttpWire.encodeSegment("../x")).isEqualTo("..%2Fx");
    assertThat(HttpWire.encodeSegment("..")).isEqualTo("%2E%2E");
    assertThat(HttpWire.encodeSegment(".")).isEqualTo("%2E");
    assertThat(HttpWire.encodeSegment("a b?c#d")).isEqualTo("a%20b%3Fc%23d");
    assertThat(HttpWire.encodeQueryValue("gpu in (a,b)")).isEqualTo("gpu%20in%20%28a%2Cb%29");
    assertThat(HttpWire.objectPath(dev.quartermaster.api.meta.Kinds.NODE, "é"))
        .isEqualTo("/api/v1/nodes/%C3%A9");
  }

  @Test
  void listDocumentRoundTripsAndAlwaysHasItems() throws Exception {
    var json =
        ObjectCodec.json().writeValueAsString(ListDocument.of(new ObjectList<>(List.of(NODE), 9)));
    assertThat(json).startsWith("{\"kind\":\"List\",\"revision\":9,\"items\":[{\"kind\":\"Node\"");
    var back = ObjectCodec.json().readValue(json, ListDocument.class);
    assertThat(back.items()).containsExactly(NODE);
    assertThat(back.revision()).isEqualTo(9);

    var empty =
        ObjectCodec.json()
            .writeValueAsString(ListDocument.of(new ObjectList<>(List.<ApiObject>of(), 3)));
    assertThat(empty).contains("\"items\":[]");
  }

  @Test
  void watchLinesRoundTrip() throws Exception {
    var lines =
        List.of(
            WatchLine.event(new WatchEvent<>(WatchEvent.Type.MODIFIED, NODE)),
            WatchLine.bookmark(12),
            WatchLine.gone(
                new ApiError(
                    410,
                    ApiError.Reason.Gone,
                    "compacted",
                    List.of(new Violation("revision", "must be >= 5"))),
                5),
            WatchLine.error(ApiError.of(ApiError.Reason.Unavailable, "shutting down")));
    for (var line : lines) {
      var json = ObjectCodec.json().writeValueAsString(line);
      assertThat(json).doesNotContain("\n");
      assertThat(ObjectCodec.json().readValue(json, WatchLine.class)).isEqualTo(line);
    }
    assertThat(ObjectCodec.json().writeValueAsString(lines.get(1)))
        .isEqualTo("{\"type\":\"BOOKMARK\",\"revision\":12}");
    assertThat(lines.get(0).object()).isEqualTo(Optional.of(NODE));
  }
}
