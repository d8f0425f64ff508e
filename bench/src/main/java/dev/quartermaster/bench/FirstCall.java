package dev.quartermaster.bench;

import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.bench.http.BenchClients;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

/**
 * A fresh JVM's one call, as {@code qm get nodes} makes it (the nodes' table), through the client
 * named first ({@code kept} or {@code apache}): {@link HttpClientBench} times a process of it to
 * weigh what each client costs a command's start. Arguments: the client, the server, its token
 * file.
 */
final class FirstCall {
  private FirstCall() {}

  public static void main(String[] args) throws Exception {
    var base = URI.create(args[1]);
    var token = Files.readString(Path.of(args[2])).trim();
    try (var api =
        args[0].equals("apache")
            ? BenchClients.pooled(base, token)
            : BenchClients.kept(base, token)) {
      api.table(Kinds.NODE, Optional.empty(), LabelSelector.ALL, Instant.EPOCH);
    }
  }
}
