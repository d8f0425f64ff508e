package dev.quartermaster.cli.describe;

import dev.quartermaster.api.client.ApiClient;
import java.time.Instant;

/**
 * What a describer may use besides the object: the API, to look up related objects (a node's
 * slices, a task's claims), the time ages are measured at, and whether to list every channel of a
 * node ({@code describe node --channels}) instead of counting them.
 */
public record DescribeContext(ApiClient api, Instant now, boolean everyChannel) {
  public DescribeContext(ApiClient api, Instant now) {
    this(api, now, false);
  }
}
