package dev.quartermaster.api.codec;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import com.fasterxml.jackson.datatype.jsr310.deser.InstantDeserializer;
import java.io.IOException;
import java.time.Instant;

/**
 * Instants in the API's JSON and YAML ({@link IsoInstants}): written in {@link Instant#toString}'s
 * form without the general formatter, and read so when they have that form; anything else (an
 * offset, a number, a malformed date) goes to the Java time module's reader, which takes or refuses
 * it as before.
 */
final class InstantJson {
  private InstantJson() {}

  /** Registered after the Java time module, so that these take its place for {@code Instant}. */
  static SimpleModule module() {
    return new SimpleModule("iso-instants")
        .addSerializer(Instant.class, new Writer())
        .addDeserializer(Instant.class, new Reader());
  }

  private static final class Writer extends StdSerializer<Instant> {
    Writer() {
      super(Instant.class);
    }

    @Override
    public void serialize(Instant value, JsonGenerator gen, SerializerProvider provider)
        throws IOException {
      gen.writeString(IsoInstants.format(value));
    }
  }

  private static final class Reader extends JsonDeserializer<Instant> {
    @Override
    public Instant deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      if (p.hasToken(JsonToken.VALUE_STRING)) {
        var fast = IsoInstants.parseOrNull(p.getText());
        if (fast != null) {
          return fast;
        }
      }
      return InstantDeserializer.INSTANT.deserialize(p, ctxt);
    }

    @Override
    public Class<?> handledType() {
      return Instant.class;
    }
  }
}
