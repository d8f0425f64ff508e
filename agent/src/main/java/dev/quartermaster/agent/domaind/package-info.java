/**
 * The compute-domain daemon: a stand-in for NVIDIA's IMEX daemon that runs as its own process per
 * domain on each member node ({@code qm domain-daemon}), and the readiness check the agent makes
 * against it over a Unix socket, as NVIDIA's host-managed mode checks {@code nvidia-imex}.
 *
 * <p>Protocol, one exchange per connection: the client sends {@code STATUS\n}; the daemon answers
 * {@code READY <domain> <node> <pid>\n} once it is ready, {@code STARTING <domain> <node> <pid>\n}
 * before, and closes.
 */
package dev.quartermaster.agent.domaind;
