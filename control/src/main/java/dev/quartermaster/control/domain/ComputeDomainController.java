package dev.quartermaster.control.domain;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.domain.ComputeDomain;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.cluster.StaleWrites;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.informer.EventHandler;
import dev.quartermaster.core.queue.Result;
import java.util.ArrayList;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps each compute domain's status true to its members and users ({@link DomainPlan}), and lets a
 * deleted domain go only once no claim names it (the in-use finalizer). Membership itself is not
 * decided here: each agent derives it from its ledger and reports it, and this controller only
 * reads.
 */
public final class ComputeDomainController {
  private static final Logger LOG = LoggerFactory.getLogger(ComputeDomainController.class);

  private final Env env;
  private final ApiClient api;
  private final Informers informers;
  private final ControlLoop loop;

  /**
   * The revision of our last write of each domain: the cache must reach it before we decide again.
   */
  private final Map<String, Long> written = new ConcurrentHashMap<>();

  public ComputeDomainController(Env env, ApiClient api, Informers informers) {
    this.env = env;
    this.api = api;
    this.informers = informers;
    this.loop = new ControlLoop("computedomains", env, 1, this::reconcile);
    informers
        .computeDomains()
        .addHandler(EventHandler.onAnyChange(d -> loop.enqueue(d.metadata().name())));
    informers
        .claims()
        .addHandler(
            EventHandler.onAnyChange(c -> c.spec().computeDomain().ifPresent(loop::enqueue)));
    informers
        .nodes()
        .addHandler(
            new EventHandler<>() {
              @Override
              public void onAdd(Node n) {
                domainsOf(n).forEach(loop::enqueue);
              }

              @Override
              public void onUpdate(Node old, Node n) {
                domainsOf(old).forEach(loop::enqueue); // a domain the node left
                domainsOf(n).forEach(loop::enqueue);
              }

              @Override
              public void onDelete(Node n) {
                domainsOf(n).forEach(loop::enqueue);
              }
            });
  }

  public ControlLoop loop() {
    return loop;
  }

  private static Set<String> domainsOf(Node n) {
    var domains = new TreeSet<>(n.status().computeDomains());
    n.status().domainDaemons().forEach(d -> domains.add(d.domain()));
    return domains;
  }

  Result reconcile(String name) {
    return StaleWrites.requeued(this::sync).apply(name);
  }

  private Result sync(String name) {
    var cached = informers.computeDomains().cache().get(name);
    if (cached.isEmpty()) {
      written.remove(name);
      return Result.done();
    }
    var domain = cached.get();
    var ours = written.get(name);
    if (ours != null && domain.metadata().revision() < ours) {
      return Result.done(); // our write's event brings it back once the cache has it
    }
    var claims = new ArrayList<>(informers.claims().cache().byIndex(Informers.BY_DOMAIN, name));
    var plan = DomainPlan.of(domain, informers.nodes().cache().list(), claims, env.now());
    var current = domain;
    if (!plan.status().equals(domain.status())) {
      current = api.updateStatus(domain.withStatus(plan.status()));
      written.put(name, current.metadata().revision());
    }
    if (plan.releaseFinalizer()) {
      var finalizers = new ArrayList<>(current.metadata().finalizers());
      finalizers.remove(ComputeDomain.IN_USE_FINALIZER);
      var released =
          api.update(current.withMetadata(current.metadata().withFinalizers(finalizers)));
      written.put(name, released.metadata().revision());
      LOG.info("compute domain {}: no claim names it; released for deletion", name);
    }
    return Result.done();
  }
}
