package dev.quartermaster.cli.describe;

import dev.quartermaster.api.client.ApiClient;
import java.time.Instant;

/**
 * What a describer may use besides the object: the API, to look up related objects (a node's
 * slices, a task's claims), and the time ages are measured at.
 */
public record DescribeContext(ApiClient api, Instant now) {}
